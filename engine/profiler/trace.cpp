// export_chrome_trace(): the profile as a Trace Event Format file, the JSON that Perfetto
// (ui.perfetto.dev -> "Open trace file") and chrome://tracing draw as one timeline per thread.
// Laid out as PyTorch's Kineto traces are: an object whose "traceEvents" holds a complete event
// ("ph": "X", start "ts" and duration "dur" in microseconds) per recorded event, category "cpu_op"
// or "user_annotation" (record_function), the input shapes and types as "Input Dims" and "Input
// type" when shapes were recorded, and metadata events ("ph": "M") naming the process and threads.
// Nested events are drawn inside each other because their intervals nest. With the CUDA activity,
// each op's GPU interval is drawn on a second process, "GPU 0" (pid 0, as Kineto numbers devices),
// as a "gpu_user_annotation": the span of the GPU work the op queued, named after the op.
// With profile_memory, each event's args add its memory columns ("CPU Mem", "Self CPU Mem", and
// "CUDA Mem", "Self CUDA Mem" where it has GPU bytes), and bytes allocated or freed outside every
// op are Kineto's "[memory]" instants ("ph": "i", category "cpu_instant_event", args "Device Type"
// 0 for the CPU or 1 for CUDA, "Device Id", "Bytes"), drawn as marks on their thread's timeline.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "profiler.h"

namespace ember::profiler {

void EventList::export_chrome_trace(const std::string& path) const {
  using nlohmann::json;
  const int pid = static_cast<int>(getpid());
  json trace_events = json::array();
  trace_events.push_back(
      {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", "ember"}}}});
  std::set<uint64_t> threads;
  bool has_gpu_intervals = false;
  for (const Event& event : events_) {
    threads.insert(event.thread);
    has_gpu_intervals = has_gpu_intervals || event.cuda_start_ns >= 0;
  }
  constexpr int kGpuProcess = 0;
  if (has_gpu_intervals)
    trace_events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", kGpuProcess}, {"tid", 0}, {"args", {{"name", "GPU 0"}}}});
  for (uint64_t thread : threads)
    trace_events.push_back({{"ph", "M"},
                            {"name", "thread_name"},
                            {"pid", pid},
                            {"tid", thread},
                            {"args", {{"name", "thread " + std::to_string(thread)}}}});
  for (const Event& event : events_) {
    if (event.name == "[memory]") {
      const bool on_gpu = event.cuda_memory_usage() != 0;
      trace_events.push_back({{"ph", "i"},
                              {"s", "t"},
                              {"cat", "cpu_instant_event"},
                              {"name", event.name},
                              {"pid", pid},
                              {"tid", event.thread},
                              {"ts", static_cast<double>(event.start_ns) / 1000.0},
                              {"args",
                               {{"Device Type", on_gpu ? 1 : 0},
                                {"Device Id", on_gpu ? 0 : -1},
                                {"Bytes", on_gpu ? event.cuda_memory_usage() : event.cpu_memory_usage()}}}});
      continue;
    }
    json args = json::object();
    if (options_.profile_memory) {
      args["CPU Mem"] = event.cpu_memory_usage();
      args["Self CPU Mem"] = self_cpu_memory_usage(event);
      if (event.cuda_memory_usage() != 0 || self_cuda_memory_usage(event) != 0) {
        args["CUDA Mem"] = event.cuda_memory_usage();
        args["Self CUDA Mem"] = self_cuda_memory_usage(event);
      }
    }
    if (!event.input_types.empty()) {
      args["Input Dims"] = event.input_shapes;
      args["Input type"] = event.input_types;
    }
    if (event.flops > 0) args["flops"] = event.flops;
    trace_events.push_back({{"ph", "X"},
                            {"cat", event.is_user_annotation ? "user_annotation" : "cpu_op"},
                            {"name", event.name},
                            {"pid", pid},
                            {"tid", event.thread},
                            {"ts", static_cast<double>(event.start_ns) / 1000.0},
                            {"dur", static_cast<double>(event.duration_ns()) / 1000.0},
                            {"args", args}});
    if (event.cuda_start_ns >= 0)
      trace_events.push_back({{"ph", "X"},
                              {"cat", "gpu_user_annotation"},
                              {"name", event.name},
                              {"pid", kGpuProcess},
                              {"tid", 0},
                              {"ts", static_cast<double>(event.cuda_start_ns) / 1000.0},
                              {"dur", static_cast<double>(event.cuda_duration_ns()) / 1000.0},
                              {"args", json::object()}});
  }
  const json trace = {
      {"schemaVersion", 1}, {"displayTimeUnit", "ms"}, {"traceName", path}, {"traceEvents", trace_events}};

  std::ofstream file(path);
  EMBER_CHECK(file.good(), "[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");  // Python's OSError text
  file << trace.dump() << "\n";
  file.flush();
  EMBER_CHECK(file.good(), "could not write the trace to '", path, "'");
}

}  // namespace ember::profiler
