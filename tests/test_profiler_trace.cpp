// export_chrome_trace() writes JSON that trace viewers read: it parses, every recorded event is a
// complete ("X") event on its thread, and the intervals nest exactly as the events did.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

std::string trace_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_" + std::to_string(::getpid()) + "_" + name)).string();
}

json read_json(const std::string& path) {
  std::ifstream file(path);
  return json::parse(file);
}

}  // namespace

TEST_CASE("the chrome trace parses and its events nest as they were recorded", "[profiler]") {
  nn::Sequential big{nn::Linear(64, 64), nn::ReLU(), nn::Linear(64, 64)};
  Tensor xb = randn({16, 64});
  profiler::Profiler prof({.record_shapes = true, .with_flops = true});
  {
    auto step = profiler::record_function("step");
    big(xb).sum().backward();
  }
  prof.stop();
  const std::string path = trace_path("trace.json");
  prof.export_chrome_trace(path);
  const json trace = read_json(path);
  std::filesystem::remove(path);

  const std::vector<profiler::Event>& events = prof.events().events();
  std::vector<json> complete;
  std::map<std::string, int> metadata;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "X") complete.push_back(e);
    if (e["ph"] == "M") ++metadata[e["name"].get<std::string>()];
  }
  REQUIRE(complete.size() == events.size());
  CHECK(metadata["process_name"] == 1);
  CHECK(metadata["thread_name"] == 1);
  CHECK(trace["displayTimeUnit"] == "ms");

  // Rebuild each event's parent from the trace alone (the innermost earlier interval on the same
  // thread that contains it), the way a viewer stacks them, and compare with what was recorded.
  auto ns = [](const json& value) { return std::llround(value.get<double>() * 1000); };
  for (size_t i = 0; i < complete.size(); ++i) {
    const json& e = complete[i];
    CHECK(e["name"] == events[i].name);
    CHECK(e["cat"] == (events[i].is_user_annotation ? "user_annotation" : "cpu_op"));
    const int64_t start = ns(e["ts"]), end = start + ns(e["dur"]);
    int64_t parent = -1;
    for (size_t j = 0; j < i; ++j) {
      const int64_t other_start = ns(complete[j]["ts"]), other_end = other_start + ns(complete[j]["dur"]);
      if (complete[j]["tid"] == e["tid"] && other_start <= start && end <= other_end) parent = static_cast<int64_t>(j);
    }
    INFO(events[i].name);
    CHECK(parent == events[i].parent);
  }

  const auto addmm =
      std::find_if(complete.begin(), complete.end(), [](const json& e) { return e["name"] == "aten::addmm"; });
  REQUIRE(addmm != complete.end());
  CHECK((*addmm)["args"]["Input Dims"] == json::parse("[[64], [16, 64], [64, 64], [], []]"));
  CHECK((*addmm)["args"]["Input type"] == json::parse(R"(["float", "float", "float", "Scalar", "Scalar"])"));
  CHECK((*addmm)["args"]["flops"] == 2 * 16 * 64 * 64);
}

TEST_CASE("a trace into a directory that does not exist raises Python's OSError text", "[profiler][errors]") {
  profiler::Profiler prof;
  prof.stop();
  CHECK_THROWS_WITH(prof.export_chrome_trace("/nonexistent/dir/t.json"),
                    "[Errno 2] No such file or directory: '/nonexistent/dir/t.json'");
}

TEST_CASE("a trace that cannot be written out raises", "[profiler][errors]") {
  profiler::Profiler prof;
  Tensor y = ones({2}).exp();
  prof.stop();
  CHECK_THROWS_WITH(prof.export_chrome_trace("/dev/full"), "could not write the trace to '/dev/full'");
}

TEST_CASE("GPU times go to the trace's GPU process, one interval per op", "[profiler]") {
  std::vector<profiler::Event> events(2);
  events[0] = {.name = "aten::linear", .thread = 1, .start_ns = 0, .end_ns = 9000};
  events[0].cuda_start_ns = 2000, events[0].cuda_end_ns = 30000;
  events[1] = {.name = "aten::addmm", .thread = 1, .start_ns = 1000, .end_ns = 8000, .parent = 0};
  events[1].cuda_start_ns = 3000, events[1].cuda_end_ns = 29000;
  const std::string path = trace_path("gpu_trace.json");
  profiler::EventList(events, {}).export_chrome_trace(path);
  const json trace = read_json(path);
  std::filesystem::remove(path);
  std::vector<json> gpu;
  bool gpu_process_named = false;
  for (const json& e : trace["traceEvents"]) {
    if (e["pid"] != 0) continue;
    if (e["ph"] == "M") gpu_process_named = e["args"]["name"] == "GPU 0";
    if (e["ph"] == "X") gpu.push_back(e);
  }
  CHECK(gpu_process_named);
  REQUIRE(gpu.size() == 2);
  CHECK(gpu[0]["name"] == "aten::linear");
  CHECK(gpu[0]["cat"] == "gpu_user_annotation");
  CHECK(gpu[0]["ts"].get<double>() == 2.0);
  CHECK(gpu[0]["dur"].get<double>() == 28.0);
  CHECK(gpu[1]["name"] == "aten::addmm");
  CHECK(gpu[1]["dur"].get<double>() == 26.0);
}
