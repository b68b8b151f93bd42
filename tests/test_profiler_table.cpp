// key_averages().table() prints PyTorch's table to the character: for the same events (made-up
// times, so the text is exact) ember's text equals PyTorch 1.13's (tests/fixtures/profiler.json).
#include <catch2/catch.hpp>

#include "fixture.h"

using namespace ember;
using profiler::Event;
using profiler::EventList;

namespace {

// The fixture's events; with `cuda_total_us`, each also gets that GPU time (children included).
EventList fixture_events(const fixture::json& events, const profiler::ProfilerOptions& options,
                         const fixture::json& cuda_total_us = nullptr) {
  std::vector<Event> list;
  for (const fixture::json& e : events) {
    Event event;
    event.name = e["name"];
    event.thread = e["thread"];
    event.start_ns = e["start_us"].get<int64_t>() * 1000;
    event.end_ns = e["end_us"].get<int64_t>() * 1000;
    event.parent = e["parent"].is_null() ? -1 : e["parent"].get<int64_t>();
    event.input_shapes = e["input_shapes"].get<std::vector<std::vector<int64_t>>>();
    const int64_t memory = e["cpu_memory_usage"];
    event.bytes_allocated = std::max<int64_t>(memory, 0);
    event.bytes_freed = std::max<int64_t>(-memory, 0);
    event.flops = e["flops"];
    if (!cuda_total_us.is_null()) {
      event.cuda_start_ns = event.start_ns;
      event.cuda_end_ns = event.start_ns + cuda_total_us.at(list.size()).get<int64_t>() * 1000;
    }
    list.push_back(event);
  }
  return EventList(list, options);
}

}  // namespace

TEST_CASE("table() prints PyTorch's layout: columns, widths, units, sorting, row_limit and footer", "[profiler]") {
  const fixture::json& profile = fixture::load("profiler.json");
  REQUIRE(profile["tables"].size() == 8);
  REQUIRE(profile["table_events"].size() == 16);
  for (const fixture::json& c : profile["tables"]) {
    const profiler::ProfilerOptions options{.profile_memory = c["profile_memory"], .with_flops = c["with_flops"]};
    const std::string sort_by = c["sort_by"].is_null() ? "" : c["sort_by"].get<std::string>();
    const EventList list = fixture_events(profile["table_events"], options);
    INFO("sort_by " << sort_by << ", row_limit " << c["row_limit"] << ", with_flops " << c["with_flops"]
                    << ", profile_memory " << c["profile_memory"] << ", grouped by shape "
                    << c["group_by_input_shape"]);
    CHECK(list.key_averages(c["group_by_input_shape"]).table(sort_by, c["row_limit"]) == c["table"]);
  }
}

TEST_CASE("with GPU times table() adds PyTorch's Self CUDA columns and footer", "[profiler]") {
  const fixture::json& profile = fixture::load("profiler.json");
  REQUIRE(profile["cuda_tables"].size() == 4);
  REQUIRE(profile["cuda_total_us"].size() == profile["table_events"].size());
  for (const fixture::json& c : profile["cuda_tables"]) {
    const profiler::ProfilerOptions options{.profile_memory = c["profile_memory"], .with_flops = c["with_flops"]};
    const std::string sort_by = c["sort_by"].is_null() ? "" : c["sort_by"].get<std::string>();
    const EventList list = fixture_events(profile["table_events"], options, profile["cuda_total_us"]);
    INFO("sort_by " << sort_by << ", row_limit " << c["row_limit"] << ", grouped by shape "
                    << c["group_by_input_shape"]);
    CHECK(list.key_averages(c["group_by_input_shape"]).table(sort_by, c["row_limit"]) == c["table"]);
  }
}

TEST_CASE("table() of a profile without events is empty, as PyTorch's is", "[profiler]") {
  CHECK(EventList({}, {}).key_averages().table("self_cpu_time_total") == "");
}

TEST_CASE("sorting a profile without GPU time by a CUDA time keeps the order", "[profiler]") {
  const fixture::json& profile = fixture::load("profiler.json");
  const EventList list = fixture_events(profile["table_events"], {});
  CHECK(list.key_averages().table("self_cuda_time_total") == list.key_averages().table());
}

TEST_CASE("sorting by a field that does not exist raises PyTorch's AttributeError text", "[profiler][errors]") {
  const EventList list({Event{.name = "aten::add", .thread = 1, .end_ns = 1000}}, {});
  CHECK_THROWS_WITH(list.key_averages().table("self_cpu_time"),
                    "'FunctionEventAvg' object has no attribute 'self_cpu_time'");
}
