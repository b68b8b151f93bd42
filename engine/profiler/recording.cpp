// Recording: what happens between the dispatcher's branch and stop().
//
// Each thread records into its own ThreadBuffer (thread_buffer.h): chunks of 4096 events, the first kept for later
// profiles, plus an arena for input shapes. A thread takes only its own buffer's mutex, which
// nobody else wants while recording (stop() takes it once, to read), so threads never wait on
// each other, and appending an event allocates nothing but a new chunk when one fills. Nesting is
// exact: each buffer knows its innermost open event, which is the parent of the next one.
//
// Bytes allocated while an event is innermost are counted on it (allocator.h's observer: CPU bytes
// as requested, GPU bytes as the blocks handed out, as PyTorch's profiler reports them); stop()
// adds each event's bytes to its parent's, so an event's memory includes its children's as in
// PyTorch, and an op's own allocations are the bytes it writes (the roofline's traffic). With
// profile_memory, bytes allocated or freed outside every event are an event of their own,
// "[memory]", as in PyTorch (a tensor freed between two ops, a graph freed after backward).
//
// With the CUDA activity, each event also takes a GPU timestamp (a CUDA event) when it opens and
// closes; stop() waits for the GPU once and turns the stamps into times. With EmitNvtx, each
// event pushes an NVTX range when it opens and pops it when it closes, profiler or not.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "core/allocator.h"
#include "core/cuda_backend.h"
#include "core/warning.h"
#include "memory_log.h"
#include "profiler.h"
#include "thread_buffer.h"

namespace ember::profiler::detail {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The running profile. Written by begin_session/end_session (under session_mutex) before or after
// `current_session` says which profile is running; recording threads only read.
std::mutex session_mutex;
bool session_running = false;
std::atomic<uint64_t> current_session{0};  // 0 while no profile records events
uint64_t last_session = 0;
int64_t session_start_ns = 0;
std::atomic<bool> record_shapes{false};
std::atomic<bool> record_cuda{false};
std::atomic<bool> record_memory{false};  // profile_memory: bytes outside every event become "[memory]" events
std::atomic<int> nvtx_guards{0};         // EmitNvtx guards alive

// Every thread's buffer; the mutex guards the list, taken when a thread first records and by
// begin/end_session, never per event.
std::mutex registry_mutex;
std::vector<std::shared_ptr<ThreadBuffer>> registry;
uint64_t next_thread_id = 1;

thread_local ThreadBuffer* this_thread = nullptr;
thread_local bool thread_exiting = false;
struct Owner {  // marks the buffer as its thread's no more when the thread ends
  std::shared_ptr<ThreadBuffer> buffer;
  ~Owner() {
    thread_exiting = true;
    this_thread = nullptr;
    if (!buffer) return;
    std::lock_guard<std::mutex> lock(buffer->mutex);
    buffer->thread_alive = false;
  }
};
thread_local Owner owner;

ThreadBuffer* buffer_of_this_thread() {
  if (this_thread != nullptr) [[likely]]
    return this_thread;
  if (thread_exiting) return nullptr;
  auto buffer = std::make_shared<ThreadBuffer>();
  buffer->inputs.reserve(kInputsReserved);
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    buffer->thread_id = next_thread_id++;
    registry.push_back(buffer);
  }
  owner.buffer = buffer;
  this_thread = buffer.get();
  return this_thread;
}

void record_argument(std::vector<int64_t>& inputs, const Argument& argument) {
  if (argument.tensor != nullptr && argument.tensor->defined()) {
    const Tensor& t = *argument.tensor;
    inputs.push_back(static_cast<int64_t>(t.dtype()));
    inputs.push_back(t.dim());
    inputs.insert(inputs.end(), t.sizes().begin(), t.sizes().end());
  } else {
    inputs.push_back(argument.is_number ? kNumber : argument.is_tensor_list ? kTensorList : kOther);
  }
}

// Opens an event on this thread's buffer, nested in its innermost open event, and its NVTX range.
template <typename Fill>
Handle open(std::string_view name, Fill&& fill) {
  Handle handle;
  if (nvtx_guards.load(std::memory_order_relaxed) > 0) {
    cuda::push_nvtx_range(std::string(name).c_str());
    handle.nvtx = true;
  }
  ThreadBuffer* buffer = buffer_of_this_thread();
  const uint64_t session = current_session.load(std::memory_order_acquire);
  if (buffer == nullptr || session == 0) return handle;
  std::lock_guard<std::mutex> lock(buffer->mutex);
  if (buffer->session != session) buffer->restart(session);
  const uint32_t index = buffer->size;
  RawEvent& event = buffer->append();
  event = RawEvent{};
  event.parent = buffer->innermost;
  event.cuda_start = event.cuda_end = -1;
  fill(*buffer, event);
  buffer->innermost = static_cast<int32_t>(index);
  if (record_cuda.load(std::memory_order_relaxed)) event.cuda_start = cuda::mark_timeline();
  event.start_ns = now_ns();  // last: the bookkeeping above is not the event's time
  handle.buffer = buffer;
  handle.index = index;
  handle.session = session;
  return handle;
}

constexpr const char* kMemoryEventName = "[memory]";

// Bytes allocated (delta > 0) or freed on this thread: counted on its innermost open event, or,
// with profile_memory, outside every event, on an event of their own named "[memory]" (PyTorch's
// top-level memory events: an instant, at top level, with no shapes).
void count_allocation(Device device, const void*, int64_t delta) {
  const bool own_events = record_memory.load(std::memory_order_relaxed);
  ThreadBuffer* buffer = own_events ? buffer_of_this_thread() : this_thread;
  if (buffer == nullptr) return;
  const uint64_t session = current_session.load(std::memory_order_acquire);
  if (session == 0) return;
  std::lock_guard<std::mutex> lock(buffer->mutex);
  if (buffer->session != session) {
    if (!own_events) return;
    buffer->restart(session);
  }
  RawEvent* event = nullptr;
  if (buffer->innermost >= 0) {
    event = &buffer->at(static_cast<uint32_t>(buffer->innermost));
  } else {
    if (!own_events) return;
    event = &buffer->append();
    *event = RawEvent{};
    event->name = kMemoryEventName;
    event->parent = -1;
    event->cuda_start = event->cuda_end = -1;
    event->traffic = Traffic::None;
    event->start_ns = event->end_ns = now_ns();
  }
  int64_t& allocated = device.is_cpu() ? event->self_allocated : event->self_cuda_allocated;
  int64_t& freed = device.is_cpu() ? event->self_freed : event->self_cuda_freed;
  if (delta > 0) allocated += delta;
  else freed -= delta;
}

// The observer with profile_memory: the same, and the block kept in the memory log that a memory
// timeline is drawn from (memory_log.h). A profile without it pays nothing for the log.
void count_and_log_allocation(Device device, const void* data, int64_t delta) {
  note_memory(device, data, delta);
  count_allocation(device, data, delta);
}

}  // namespace

Handle open_op(const char* name, Traffic traffic, const Argument* arguments, size_t count, int64_t bytes_read,
               int64_t bytes_overwritten) {
  if (record_memory.load(std::memory_order_relaxed)) [[unlikely]]
    note_op_arguments(arguments, count);  // inputs, parameters (memory_log.h)
  return open(name, [&](ThreadBuffer& buffer, RawEvent& event) {
    event.name = name;
    event.traffic = traffic;
    event.bytes_read = bytes_read;
    event.bytes_overwritten = bytes_overwritten;
    if (!record_shapes.load(std::memory_order_relaxed)) return;
    event.inputs_begin = static_cast<uint32_t>(buffer.inputs.size());
    event.input_count = static_cast<uint32_t>(count);
    for (size_t i = 0; i < count; ++i) record_argument(buffer.inputs, arguments[i]);
  });
}

Handle open_range(const char* constant_name, std::string_view copied_name, bool is_user_annotation,
                  const Argument* arguments, size_t count) {
  return open(constant_name != nullptr ? std::string_view(constant_name) : copied_name,
              [&](ThreadBuffer& buffer, RawEvent& event) {
                event.name = constant_name != nullptr ? constant_name : buffer.names.emplace_back(copied_name).c_str();
                event.traffic = Traffic::None;
                event.is_user_annotation = is_user_annotation;
                if (count == 0 || !record_shapes.load(std::memory_order_relaxed)) return;
                event.inputs_begin = static_cast<uint32_t>(buffer.inputs.size());
                event.input_count = static_cast<uint32_t>(count);
                for (size_t i = 0; i < count; ++i) record_argument(buffer.inputs, arguments[i]);
              });
}

void close(const Handle& handle) {
  const int64_t end = now_ns();
  if (handle.buffer != nullptr) {
    ThreadBuffer& buffer = *handle.buffer;
    std::lock_guard<std::mutex> lock(buffer.mutex);
    if (buffer.session == handle.session && handle.index < buffer.size) {  // else the profile ended first
      RawEvent& event = buffer.at(handle.index);
      event.end_ns = end;
      if (event.cuda_start >= 0) event.cuda_end = cuda::mark_timeline();
      buffer.innermost = event.parent;
    }
  }
  if (handle.nvtx) cuda::pop_nvtx_range();
}

void begin_session(const ProfilerOptions& options) {
  std::lock_guard<std::mutex> lock(session_mutex);
  EMBER_CHECK(!session_running, "Profiler is already enabled on this thread.");
  const auto asks_for = [&](ProfilerActivity activity) {
    return std::find(options.activities.begin(), options.activities.end(), activity) != options.activities.end();
  };
  bool cuda = asks_for(ProfilerActivity::CUDA);
  if (cuda && !cuda::is_available()) {
    warn("CUDA is not available, disabling CUDA profiling");
    cuda = false;
  }
  // GPU times belong to op events, so without the CPU activity there is nothing to time.
  const bool records_events = asks_for(ProfilerActivity::CPU);
  cuda = cuda && records_events;
  record_shapes.store(options.record_shapes || options.with_flops);
  record_memory.store(options.profile_memory && records_events);
  if (cuda) cuda::start_timeline();
  record_cuda.store(cuda);
  session_start_ns = now_ns();
  const bool log_memory = options.profile_memory && records_events;
  if (log_memory) begin_memory_log(session_start_ns);
  set_allocation_observer(log_memory ? count_and_log_allocation : count_allocation);
  current_session.store(records_events ? ++last_session : 0, std::memory_order_release);
  session_running = true;
  recording.store(records_events || nvtx_guards.load() > 0, std::memory_order_release);
}

namespace {

// The GPU stamps of one profile: microseconds after the origin, per mark; a mark taken after the
// stop (an event closed late) reads as the stop's.
struct GpuStamps {
  std::vector<double> microseconds;
  int32_t stop_mark = -1;
  int64_t ns(int32_t mark) const {
    const size_t i = mark >= 0 && static_cast<size_t>(mark) < microseconds.size() ? mark : stop_mark;
    return static_cast<int64_t>(microseconds[i] * 1000.0);
  }
};

Event cooked(ThreadBuffer& buffer, const RawEvent& raw, int64_t first_index, int64_t stop_ns, const GpuStamps& gpu) {
  Event event;
  event.name = raw.name;
  event.is_user_annotation = raw.is_user_annotation;
  event.thread = buffer.thread_id;
  event.start_ns = raw.start_ns - session_start_ns;
  event.end_ns = (raw.end_ns != 0 ? raw.end_ns : stop_ns) - session_start_ns;  // still open: ends at stop()
  event.parent = raw.parent < 0 ? -1 : first_index + raw.parent;
  event.bytes_allocated = raw.self_allocated;
  event.bytes_freed = raw.self_freed;
  event.cuda_bytes_allocated = raw.self_cuda_allocated;
  event.cuda_bytes_freed = raw.self_cuda_freed;
  if (raw.cuda_start >= 0) {
    event.cuda_start_ns = gpu.ns(raw.cuda_start);
    event.cuda_end_ns = std::max(event.cuda_start_ns, gpu.ns(raw.cuda_end));  // still open: ends at stop()
  }
  event.bytes_read = raw.bytes_read;
  event.bytes_written = raw.traffic == Traffic::Functional ? raw.self_allocated
                        : raw.traffic == Traffic::InPlace  ? raw.bytes_overwritten
                                                           : 0;
  const int64_t* input = buffer.inputs.data() + raw.inputs_begin;
  for (uint32_t i = 0; i < raw.input_count; ++i) {
    const int64_t code = *input++;
    if (code >= 0) {
      const int64_t ndim = *input++;
      event.input_shapes.emplace_back(input, input + ndim);
      event.input_types.push_back(type_meta_name(static_cast<DType>(code)));
      input += ndim;
    } else {
      event.input_shapes.emplace_back();
      event.input_types.push_back(code == kNumber ? "Scalar" : code == kTensorList ? "TensorList" : "");
    }
  }
  return event;
}

// In start order across threads (a thread's events are already in its own start order), with
// each event's bytes added into its parent's.
std::vector<Event> in_start_order(std::vector<Event> events) {
  std::vector<int64_t> order(events.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return events[a].start_ns < events[b].start_ns; });
  std::vector<int64_t> new_index(events.size());
  for (size_t i = 0; i < order.size(); ++i) new_index[order[i]] = static_cast<int64_t>(i);
  std::vector<Event> sorted;
  sorted.reserve(events.size());
  for (int64_t old : order) {
    sorted.push_back(std::move(events[old]));
    if (sorted.back().parent >= 0) sorted.back().parent = new_index[sorted.back().parent];
  }
  for (size_t i = sorted.size(); i-- > 0;) {  // children come after their parent
    if (sorted[i].parent < 0) continue;
    Event& parent = sorted[sorted[i].parent];
    parent.bytes_allocated += sorted[i].bytes_allocated;
    parent.bytes_freed += sorted[i].bytes_freed;
    parent.cuda_bytes_allocated += sorted[i].cuda_bytes_allocated;
    parent.cuda_bytes_freed += sorted[i].cuda_bytes_freed;
  }
  return sorted;
}

}  // namespace

std::vector<Event> end_session() {
  std::lock_guard<std::mutex> lock(session_mutex);
  const int64_t stop_ns = now_ns();
  const uint64_t session = current_session.exchange(0);
  session_running = false;
  recording.store(nvtx_guards.load() > 0);
  set_allocation_observer(nullptr);
  record_memory.store(false);
  end_memory_log(stop_ns);
  GpuStamps gpu;
  if (record_cuda.exchange(false)) {
    gpu.stop_mark = cuda::mark_timeline();
    gpu.microseconds = cuda::read_timeline();
  }
  std::vector<Event> events;
  std::lock_guard<std::mutex> registry_lock(registry_mutex);
  for (const std::shared_ptr<ThreadBuffer>& buffer : registry) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mutex);
    if (buffer->session != session) continue;
    const int64_t first_index = static_cast<int64_t>(events.size());
    for (uint32_t i = 0; i < buffer->size; ++i)
      events.push_back(cooked(*buffer, buffer->at(i), first_index, stop_ns, gpu));
    buffer->restart(0);
    buffer->release_memory();
  }
  std::erase_if(registry, [](const std::shared_ptr<ThreadBuffer>& buffer) {
    std::lock_guard<std::mutex> buffer_lock(buffer->mutex);
    return !buffer->thread_alive;
  });
  return in_start_order(std::move(events));
}

void begin_nvtx() {
  EMBER_CHECK(cuda::is_built(), "Torch not compiled with CUDA enabled");
  std::lock_guard<std::mutex> lock(session_mutex);
  nvtx_guards.fetch_add(1);
  recording.store(true, std::memory_order_release);
}

void end_nvtx() {
  std::lock_guard<std::mutex> lock(session_mutex);
  nvtx_guards.fetch_sub(1);
  recording.store(current_session.load() != 0 || nvtx_guards.load() > 0, std::memory_order_release);
}

}  // namespace ember::profiler::detail
