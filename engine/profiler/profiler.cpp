// The Profiler object: starts and stops recording (profiler_recording.cpp) and keeps what one run
// recorded. Its error texts are PyTorch's, for the same mistakes. Also the stack of open range
// names that anomaly mode reads.
#include "profiler.h"

#include "core/cuda_backend.h"
#include "memory_log.h"

namespace ember::profiler {

namespace {
thread_local std::vector<std::string> range_names;
}  // namespace

void detail::push_range_name(std::string_view name) { range_names.emplace_back(name); }
void detail::pop_range_name() {
  if (!range_names.empty()) range_names.pop_back();
}
void keep_range_names(bool keep) { detail::keeping_range_names.store(keep, std::memory_order_relaxed); }
std::vector<std::string> open_range_names() { return range_names; }

std::vector<ProfilerActivity> supported_activities() {
  if (cuda::is_available()) return {ProfilerActivity::CPU, ProfilerActivity::CUDA};
  return {ProfilerActivity::CPU};
}

Profiler::Profiler(ProfilerOptions options) : options_(std::move(options)) { start(); }

Profiler::~Profiler() {
  if (running_) detail::end_session();  // an exception left the profiled code: stop, keep nothing
}

void Profiler::start() {
  detail::begin_session(options_);
  running_ = true;
  finished_ = false;
  events_ = EventList();
  memory_log_.reset();
}

void Profiler::stop() {
  EMBER_CHECK(running_, "Can't disable Kineto profiler when it's not running");
  std::vector<Event> events = detail::end_session();
  memory_log_ = detail::take_memory_log();
  running_ = false;
  for (Event& event : events) {
    if (options_.with_flops) event.flops = flops_of(event);
    if (!options_.profile_memory)  // counted for bytes_written only
      event.bytes_allocated = event.bytes_freed = event.cuda_bytes_allocated = event.cuda_bytes_freed = 0;
  }
  events_ = EventList(std::move(events), options_);
  finished_ = true;
}

const EventList& Profiler::events() const {
  EMBER_CHECK(finished_, "Profiler didn't finish running");
  return events_;
}

KeyAverages Profiler::key_averages(bool group_by_input_shape) const {
  return events().key_averages(group_by_input_shape);
}

void Profiler::export_chrome_trace(const std::string& path) const { events().export_chrome_trace(path); }

MemoryTimeline Profiler::memory_timeline(std::optional<Device> device) const {
  events();  // asks that it has stopped
  // PyTorch's ValueError; ember needs neither record_shapes nor with_stack, which PyTorch names too.
  if (!memory_log_) throw ValueError("profile_memory=True required for memory profiling.");
  return MemoryTimeline(*memory_log_, device.value_or(cuda::is_available() ? Device(DeviceType::CUDA, 0) : kCPU));
}

void Profiler::export_memory_timeline(const std::string& path, std::optional<Device> device) const {
  memory_timeline(device).export_memory_timeline(path);
}

}  // namespace ember::profiler
