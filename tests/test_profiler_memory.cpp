// profile_memory: each event counts the bytes allocated and freed inside it, and bytes allocated or
// freed outside every op are "[memory]" events, as PyTorch's profiler counts them. The chapter's
// step gives PyTorch 1.13's CPU Mem and Self CPU Mem for every key (tests/fixtures/profiler.json
// "chapter_memory"); the table shows the columns and the trace the "[memory]" instants.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "device_cases.h"
#include "fixture.h"

using namespace ember;

namespace {

struct MemoryColumns {
  int64_t total = 0, self = 0;
  bool operator==(const MemoryColumns&) const = default;
};
std::ostream& operator<<(std::ostream& out, const MemoryColumns& m) {
  return out << "CPU Mem " << m.total << ", Self CPU Mem " << m.self;
}

}  // namespace

TEST_CASE("profile_memory gives the chapter's step PyTorch's CPU Mem and Self CPU Mem for every key", "[profiler]") {
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  std::map<std::string, MemoryColumns> ember;
  {
    profiler::Profiler prof({.profile_memory = true});
    big(xb).sum().backward();
    prof.stop();
    for (const profiler::EventAverage& row : prof.key_averages())
      ember[row.key] = {row.cpu_memory_usage, row.self_cpu_memory_usage};
  }
  std::map<std::string, MemoryColumns> pytorch;
  for (const fixture::json& row : fixture::load("profiler.json")["chapter_memory"])
    pytorch[row["key"]] = {row["cpu_memory_usage"], row["self_cpu_memory_usage"]};
  // aten::resolve_conj is a documented difference (profiler/documented_differences.h): no bytes.
  REQUIRE(pytorch.count("aten::resolve_conj") == 1);
  CHECK(pytorch["aten::resolve_conj"] == MemoryColumns{});
  pytorch.erase("aten::resolve_conj");
  for (const auto& [key, columns] : pytorch) {
    INFO(key);
    REQUIRE(ember.count(key) == 1);
    CHECK(ember[key] == columns);
  }
  CHECK(ember.size() == pytorch.size());
}

// A device's bytes go to the CUDA Mem columns, in its caching allocator's 512-byte blocks; the
// number that x * 2 multiplies by is made on the device too, and freed inside the op.
DEVICE_TEST_CASE("profile_memory counts a device op's bytes in its CUDA Mem column, none in CPU Mem", "[profiler]") {
  const Tensor x = ones({4, 8}, Options(device));
  profiler::Profiler prof({.profile_memory = true});
  const Tensor doubled = x * 2;
  prof.stop();
  bool found = false;
  for (const profiler::EventAverage& row : prof.key_averages()) {
    if (row.key != "aten::mul") continue;
    found = true;
    CHECK(row.cuda_memory_usage == 512);
    CHECK(row.self_cuda_memory_usage == 512);
    CHECK(row.cpu_memory_usage == 0);
  }
  CHECK(found);
}

TEST_CASE("profile_memory: bytes freed between two ops are a top-level [memory] event", "[profiler]") {
  Tensor x = ones({4, 8});
  profiler::Profiler prof({.profile_memory = true});
  { Tensor dropped = x * 2; }  // freed here, outside every op
  prof.stop();
  const auto& events = prof.events().events();
  REQUIRE(events.size() == 2);
  CHECK(events[0].name == "aten::mul");
  CHECK(events[0].cpu_memory_usage() == 4 * 8 * 4);
  CHECK(events[1].name == "[memory]");
  CHECK(events[1].parent == -1);
  CHECK(events[1].cpu_memory_usage() == -4 * 8 * 4);
  CHECK(events[1].duration_ns() == 0);
}

TEST_CASE("without profile_memory no [memory] events are recorded and no memory columns shown", "[profiler]") {
  Tensor x = ones({4, 8});
  profiler::Profiler prof;
  { Tensor dropped = x * 2; }
  prof.stop();
  REQUIRE(prof.events().events().size() == 1);
  CHECK(prof.events().events()[0].cpu_memory_usage() == 0);
  CHECK(prof.key_averages().table().find("CPU Mem") == std::string::npos);
}

TEST_CASE("profile_memory's table shows CPU Mem and Self CPU Mem, and no CUDA Mem without GPU bytes", "[profiler]") {
  Tensor x = ones({256, 256});
  profiler::Profiler prof({.profile_memory = true});
  Tensor y = x.t().contiguous();
  prof.stop();
  const std::string table = prof.key_averages().table();
  INFO(table);
  CHECK(table.find("CPU Mem  Self CPU Mem") != std::string::npos);
  CHECK(table.find("CUDA Mem") == std::string::npos);
  for (const profiler::EventAverage& row : prof.key_averages()) {
    INFO(row.key);
    // The copy's 256 KiB are made by empty_like > empty and held by every event around them.
    const bool holds = row.key == "aten::contiguous" || row.key == "aten::clone" || row.key == "aten::empty_like" ||
                       row.key == "aten::empty";
    CHECK(row.cpu_memory_usage == (holds ? 256 * 256 * 4 : 0));
    CHECK(row.self_cpu_memory_usage == (row.key == "aten::empty" ? 256 * 256 * 4 : 0));
  }
}

TEST_CASE("profile_memory's chrome trace shows each event's memory and the [memory] instants", "[profiler]") {
  Tensor x = ones({4, 8});
  profiler::Profiler prof({.profile_memory = true});
  { Tensor dropped = x * 2; }
  prof.stop();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ember_memory_trace_" + std::to_string(getpid()) + ".json")).string();
  prof.export_chrome_trace(path);
  std::ifstream file(path);
  const nlohmann::json trace = nlohmann::json::parse(file);
  std::filesystem::remove(path);
  bool saw_op = false, saw_instant = false;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["name"] == "aten::mul") {
      saw_op = true;
      CHECK(event["args"]["CPU Mem"] == 128);
      CHECK(event["args"]["Self CPU Mem"] == 128);
    }
    if (event["name"] == "[memory]") {
      saw_instant = true;
      CHECK(event["ph"] == "i");
      CHECK(event["cat"] == "cpu_instant_event");
      CHECK(event["args"]["Bytes"] == -128);
      CHECK(event["args"]["Device Type"] == 0);
    }
  }
  CHECK(saw_op);
  CHECK(saw_instant);
}
