// The op profiler: which ops ran, nested how, for how long, moving how many bytes and FLOPs.
// Why it lives in the dispatcher: every op already passes through call<Op> (dispatch.h), so one
// line there records every op once, under PyTorch's operator name ("aten::addmm"), and a profile
// of ember reads like PyTorch's. The backward engine adds PyTorch's two events per node
// ("autograd::engine::evaluate_function: AddmmBackward0" around "AddmmBackward0"), and users open
// their own ranges with record_function("name").
//
//   profiler::Profiler prof({.with_flops = true});   // recording, like `with profile(...) as prof:`
//   big(xb).sum().backward();
//   prof.stop();
//   std::cout << prof.key_averages().table("self_cpu_time_total", 10);
//
// Recording (profiler_recording.cpp) costs one predictable branch per op while no profiler runs.
// While one runs, each thread appends to its own preallocated buffer: threads never wait on each
// other. stop() gathers the buffers into an EventList (profiler_events.cpp: nesting, self times,
// key_averages), printed by table() (profiler_table.cpp) or written as a chrome trace
// (profiler_trace.cpp). roofline.h says which ops are compute-, memory- or overhead-bound.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/dispatch_trace.h"
#include "core/tensor.h"
#include "memory_category.h"
#include "memory_timeline.h"

namespace ember::profiler {

enum class ProfilerActivity { CPU, CUDA };

// What torch.profiler.supported_activities() answers for ember: the CPU, and CUDA where a GPU is.
std::vector<ProfilerActivity> supported_activities();
// torch.profiler.kineto_available(): false, ember records with this profiler, not Kineto.
constexpr bool kineto_available() { return false; }

// PyTorch's profile(...) arguments. with_flops also records shapes, as PyTorch does. The CUDA
// activity adds each op's GPU time, measured as PyTorch's legacy profiler (use_cuda=True) does:
// a CUDA event at the op's start and end (engine/cuda_backend.h); the table then shows the Self
// CUDA columns. Asked for on a machine without a GPU, it warns and records CPU events only.
struct ProfilerOptions {
  std::vector<ProfilerActivity> activities = {ProfilerActivity::CPU};
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_flops = false;
};

// One recorded interval on one thread (PyTorch's FunctionEvent).
struct Event {
  std::string name;
  bool is_user_annotation = false;   // a record_function range, not an op
  uint64_t thread = 0;               // 1 for the first thread that recorded, 2 for the next, ...
  int64_t start_ns = 0, end_ns = 0;  // steady clock, from the profiler's start
  int64_t parent = -1;               // index of the enclosing event in the same list; -1: top level
  std::vector<int64_t> children;     // indices of the events directly inside (set by EventList)
  // With record_shapes: one entry per argument; a non-tensor argument has shape [] and type
  // "Scalar" (a number), "TensorList" or "" (anything else), as in PyTorch.
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::string> input_types;  // "float", "double", "long int", ...
  // profile_memory: CPU bytes allocated and freed inside it, its children's included (requested
  // bytes, as PyTorch reports them), and GPU bytes (the caching allocator's blocks). An event named
  // "[memory]" holds bytes allocated or freed outside every event, at that instant.
  int64_t bytes_allocated = 0, bytes_freed = 0;
  int64_t cuda_bytes_allocated = 0, cuda_bytes_freed = 0;
  int64_t flops = 0;                          // with_flops: PyTorch's formula, 0 for other ops
  int64_t bytes_read = 0, bytes_written = 0;  // the op's own tensor traffic (see roofline.h)
  // CUDA activity: the GPU's stamps at the op's start and end, from the profiler's start; the
  // GPU time between them includes its children's, as CPU times do. -1: not timed on the GPU.
  int64_t cuda_start_ns = -1, cuda_end_ns = -1;

  int64_t duration_ns() const { return end_ns - start_ns; }
  int64_t cuda_duration_ns() const { return cuda_start_ns < 0 ? 0 : cuda_end_ns - cuda_start_ns; }
  int64_t cpu_memory_usage() const { return bytes_allocated - bytes_freed; }
  int64_t cuda_memory_usage() const { return cuda_bytes_allocated - cuda_bytes_freed; }
};

// PyTorch's FLOP count for an op event, from its input shapes (with_flops): 2·M·K·N for
// aten::mm/addmm, 2·B·M·K·N for aten::bmm/baddbmm, the first input's element count for
// aten::add/mul; 0 for every other op (aten::linear's FLOPs are its addmm's).
int64_t flops_of(const Event& event);
// Input shapes as PyTorch prints them: [[256, 512], [512, 512], []].
std::string shapes_string(const std::vector<std::vector<int64_t>>& shapes);

// One row of key_averages() (PyTorch's FunctionEventAvg): the events of one key, summed.
// Times are in microseconds, as PyTorch reports them.
struct EventAverage {
  std::string key;
  std::vector<std::vector<int64_t>> input_shapes;  // only when grouped by input shape
  int64_t count = 0;
  double cpu_time_total = 0, self_cpu_time_total = 0;
  double cuda_time_total = 0, self_cuda_time_total = 0;
  int64_t cpu_memory_usage = 0, self_cpu_memory_usage = 0;
  int64_t cuda_memory_usage = 0, self_cuda_memory_usage = 0;
  int64_t flops = 0;
  int64_t bytes_read = 0, bytes_written = 0;

  double cpu_time() const { return count == 0 ? 0.0 : cpu_time_total / static_cast<double>(count); }
  double cuda_time() const { return count == 0 ? 0.0 : cuda_time_total / static_cast<double>(count); }
};

class KeyAverages {
 public:
  KeyAverages(std::vector<EventAverage> rows, ProfilerOptions options, bool grouped_by_input_shape)
      : rows_(std::move(rows)),
        options_(std::move(options)),
        grouped_by_input_shape_(grouped_by_input_shape) {}

  // PyTorch's table: sort_by names an EventAverage field ("self_cpu_time_total", "cpu_time",
  // "count", ...; "" keeps the order of first appearance), at most row_limit rows.
  std::string table(const std::string& sort_by = "", int64_t row_limit = 100) const;

  const std::vector<EventAverage>& rows() const { return rows_; }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  size_t size() const { return rows_.size(); }
  const ProfilerOptions& options() const { return options_; }
  bool grouped_by_input_shape() const { return grouped_by_input_shape_; }

 private:
  std::vector<EventAverage> rows_;
  ProfilerOptions options_;
  bool grouped_by_input_shape_;
};

// The events of one profile with their nesting (PyTorch's EventList after _build_tree).
class EventList {
 public:
  EventList() = default;
  // `events` in the order they started, each `parent` an earlier index or -1. Sets `children` and,
  // as PyTorch does, folds an only child that has its parent's name into the parent.
  EventList(std::vector<Event> events, ProfilerOptions options);

  const std::vector<Event>& events() const { return events_; }
  const ProfilerOptions& options() const { return options_; }
  int64_t self_cpu_time_ns(const Event& event) const;   // its time minus its direct children's
  int64_t self_cuda_time_ns(const Event& event) const;  // the same on the GPU
  int64_t self_cpu_memory_usage(const Event& event) const;
  int64_t self_cuda_memory_usage(const Event& event) const;

  KeyAverages key_averages(bool group_by_input_shape = false) const;
  // A JSON trace (ph "X" events) for ui.perfetto.dev or chrome://tracing.
  void export_chrome_trace(const std::string& path) const;

 private:
  std::vector<Event> events_;
  ProfilerOptions options_;
};

// Records while it runs: from construction (or start()) to stop(); the destructor stops a
// profiler still running. One profiler runs at a time in a process.
class Profiler {
 public:
  explicit Profiler(ProfilerOptions options = {});
  ~Profiler();
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  void start();  // records anew; what an earlier run recorded is dropped
  void stop();

  // The results; each asks that the profiler has stopped.
  const EventList& events() const;
  KeyAverages key_averages(bool group_by_input_shape = false) const;
  void export_chrome_trace(const std::string& path) const;
  // With profile_memory: the bytes of `device` by category over time (memory_timeline.h), and
  // that timeline written as .json, .png or .html. No device: the first GPU if there is one, else
  // the CPU, as PyTorch's export_memory_timeline chooses.
  MemoryTimeline memory_timeline(std::optional<Device> device = std::nullopt) const;
  void export_memory_timeline(const std::string& path, std::optional<Device> device = std::nullopt) const;

 private:
  ProfilerOptions options_;
  bool running_ = false;
  bool finished_ = false;
  EventList events_;
  std::shared_ptr<const detail::MemoryLog> memory_log_;  // with profile_memory, once stopped
};

// ---- recording (profiler_recording.cpp) ----
namespace detail {

// True while a Profiler runs or an EmitNvtx guard lives: the one branch per op.
inline std::atomic<bool> recording{false};

struct ThreadBuffer;
// An open event: where it was recorded, so its end can be written there, and whether an NVTX
// range was pushed for it.
struct Handle {
  ThreadBuffer* buffer = nullptr;
  uint32_t index = 0;
  uint64_t session = 0;
  bool nvtx = false;
  bool is_open() const { return buffer != nullptr || nvtx; }
};

// What recording needs to know about one argument of an op.
struct Argument {
  const Tensor* tensor = nullptr;  // a Tensor argument
  bool is_number = false;          // Scalar, int64_t, double, bool, DType: PyTorch's "Scalar"
  bool is_tensor_list = false;
};

template <typename T>
Argument describe(const T& value) {
  if constexpr (std::is_same_v<T, Tensor>) return {&value};
  else if constexpr (std::is_same_v<T, std::vector<Tensor>>) return {nullptr, false, true};
  else if constexpr (std::is_same_v<T, std::optional<Scalar>>) return {nullptr, value.has_value()};  // None: ""
  else return {nullptr, std::is_arithmetic_v<T> || std::is_same_v<T, Scalar> || std::is_same_v<T, DType>};
}

// The bytes of a tensor's distinct elements: a broadcast (stride 0) dimension adds none.
inline int64_t distinct_bytes(const Tensor& t) {
  if (!t.defined() || t.numel() == 0) return 0;
  int64_t elements = 1;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.stride(d) != 0) elements *= t.size(d);
  return elements * t.element_size();
}

template <typename T>
int64_t tensor_bytes(const T& value) {
  auto bytes = [](const Tensor& t) { return distinct_bytes(t); };
  if constexpr (std::is_same_v<T, Tensor>) return bytes(value);
  else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    int64_t total = 0;
    for (const Tensor& t : value) total += bytes(t);
    return total;
  } else return 0;
}

// How an op moves memory: a view or a composite op moves none itself (the ops it calls do), a
// functional op reads its tensor arguments and writes what it allocates, an in-place op writes
// its first argument.
enum class Traffic : uint8_t { None, Functional, InPlace };

Handle open_op(const char* name, Traffic traffic, const Argument* arguments, size_t count, int64_t bytes_read,
               int64_t bytes_overwritten);
// A range: a user's (is_user_annotation) or the engine's; with record_shapes, its `count` arguments.
Handle open_range(const char* constant_name, std::string_view copied_name, bool is_user_annotation,
                  const Argument* arguments = nullptr, size_t count = 0);
void close(const Handle& handle);

// Profiler::start and stop: the recording threads' buffers, gathered in start order.
void begin_session(const ProfilerOptions& options);
std::vector<Event> end_session();
// EmitNvtx's constructor and destructor.
void begin_nvtx();
void end_nvtx();

}  // namespace detail

// The profiler layer of call<Op> (dispatch.h): an event named Op::name around the whole call.
template <typename Op>
class OpEvent {
 public:
  template <typename... Args>
  explicit OpEvent(const Args&... args) {
    if (detail::recording.load(std::memory_order_relaxed)) [[unlikely]]
      open(args...);
    // A step (steps.h: aten::empty inside a factory, clone's aten::copy_) has no call<Op> to write
    // its line in the dispatch trace, so its event does: the name, and its kernel's lines under it.
    if constexpr (is_step)
      if (trace::enabled()) [[unlikely]] {
        trace::say(Op::name);
        trace::enter();
        traced_ = true;
      }
  }
  ~OpEvent() {
    if (handle_.is_open()) [[unlikely]]
      detail::close(handle_);
    if constexpr (is_step)
      if (traced_) [[unlikely]]
        trace::leave();
  }
  OpEvent(const OpEvent&) = delete;
  OpEvent& operator=(const OpEvent&) = delete;

 private:
  static constexpr bool is_step = std::is_same_v<std::remove_cv_t<decltype(Op::kind)>, detail::Traffic>;

  template <typename... Args>
  [[gnu::noinline]] void open(const Args&... args) {
    using Kind = std::remove_cv_t<decltype(Op::kind)>;  // dispatch.h's OpKind, or a step's Traffic (steps.h)
    // An op whose work is done by the steps it records inside (clone: empty_like, copy_) moves no
    // bytes of its own: its steps carry them.
    constexpr bool work_in_steps = requires { Op::work_in_steps; };
    constexpr detail::Traffic traffic = work_in_steps                  ? detail::Traffic::None
                                        : Op::kind == Kind::InPlace    ? detail::Traffic::InPlace
                                        : Op::kind == Kind::Functional ? detail::Traffic::Functional
                                                                       : detail::Traffic::None;
    const detail::Argument arguments[] = {detail::describe(args)..., detail::Argument{}};
    int64_t bytes_read = 0, bytes_overwritten = 0;
    if constexpr (traffic != detail::Traffic::None) bytes_read = (int64_t{0} + ... + detail::tensor_bytes(args));
    if constexpr (traffic == detail::Traffic::InPlace)
      bytes_overwritten = detail::tensor_bytes(std::get<0>(std::tie(args...)));
    handle_ = detail::open_op(Op::name, traffic, arguments, sizeof...(Args), bytes_read, bytes_overwritten);
  }
  detail::Handle handle_;
  bool traced_ = false;
};

namespace detail {
// True while someone asks which ranges are open (anomaly mode): then record_function keeps its
// name on a per-thread stack, whether or not a profiler runs.
inline std::atomic<bool> keeping_range_names{false};
void push_range_name(std::string_view name);
void pop_range_name();
}  // namespace detail

// The names of the record_function ranges open on this thread, outermost first, while
// keep_range_names(true) is in effect (autograd's anomaly mode turns it on); else empty.
void keep_range_names(bool keep);
std::vector<std::string> open_range_names();

// A range named by the caller, shown in the profile like an op (PyTorch's record_function):
//   { auto range = profiler::record_function("data loading"); ... }
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name) {
    if (detail::recording.load(std::memory_order_relaxed)) [[unlikely]]
      handle_ = detail::open_range(nullptr, name, true);
    if (detail::keeping_range_names.load(std::memory_order_relaxed)) [[unlikely]] {
      detail::push_range_name(name);
      named_ = true;
    }
  }
  ~RecordFunction() {
    if (handle_.is_open()) [[unlikely]]
      detail::close(handle_);
    if (named_) [[unlikely]]
      detail::pop_range_name();
  }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

 private:
  detail::Handle handle_;
  bool named_ = false;
};
[[nodiscard]] inline RecordFunction record_function(std::string_view name) { return RecordFunction(name); }

// PyTorch's emit_nvtx(): while it lives, every op and range pushes an NVTX range named after
// it, so Nsight Systems (`nsys profile ./program`) shows ember's ops above their kernels. Needs
// a build with CUDA (a GPU is not needed: without a tool attached the ranges cost nothing).
class EmitNvtx {
 public:
  EmitNvtx() { detail::begin_nvtx(); }
  ~EmitNvtx() { detail::end_nvtx(); }
  EmitNvtx(const EmitNvtx&) = delete;
  EmitNvtx& operator=(const EmitNvtx&) = delete;
};

// ember's own ranges (the backward engine's), named by a string constant that is not copied. With
// an input, record_shapes shows its shape as the range's one argument: a backward node's event
// shows the gradient it was given, as PyTorch's does.
class Scope {
 public:
  // `copy_name`: the name may not outlive the profile (a custom function's node), so it is copied.
  explicit Scope(const char* constant_name, bool copy_name = false) {
    if (detail::recording.load(std::memory_order_relaxed)) [[unlikely]]
      handle_ = detail::open_range(copy_name ? nullptr : constant_name, copy_name ? constant_name : "", false);
  }
  Scope(const char* constant_name, const Tensor& input, bool copy_name = false) {
    if (detail::recording.load(std::memory_order_relaxed)) [[unlikely]] {
      const detail::Argument argument = detail::describe(input);
      handle_ =
          detail::open_range(copy_name ? nullptr : constant_name, copy_name ? constant_name : "", false, &argument, 1);
    }
  }
  ~Scope() {
    if (handle_.is_open()) [[unlikely]]
      detail::close(handle_);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  detail::Handle handle_;
};

}  // namespace ember::profiler
