// The dispatch trace: every layer of the engine saying what it decided for each op call, as it
// decides it. PyTorch shows little of this (TORCH_SHOW_DISPATCH_TRACE needs a debug build and
// names only dispatch keys); ember can show all of it because every op goes through one
// call<Op> (dispatch.h). While a trace runs, call<Op> writes the op and its arguments, and then
// each layer adds its lines below, indented under the op: the profiler event, autocast's casts
// (and cast cache hits), the kernel that ran (kernels/ write that line themselves, since only they
// know it), the output's storage, the autograd node and what it saved, version bumps, warnings.
// The backward engine writes each node it runs, the hooks it calls and what AccumulateGrad did.
//
// The text has no timings and no addresses: tensors are named t0, t1, ... and storages s0, s1, ...
// in the order the trace first sees them, so the same program prints the same trace, which the
// golden tests (tests/test_dispatch_trace.cpp) and docs/tour.md rely on.
//
// Off, it costs one relaxed load and a predictable branch per op, as the profiler's off path.
//   { DispatchTrace trace; y = model(x); std::cout << trace.text(); }   // C++
//   with ember.utils.dispatch_trace(): y = model(x)                       # Python
//   EMBER_TRACE=1 ./program                                                # any program, to stderr
#pragma once
#include <atomic>
#include <exception>
#include <iosfwd>
#include <string>
#include <string_view>

#include "error.h"

namespace ember {

class Tensor;

// How many observers of the dispatcher are on: the dispatch trace (however many DispatchTraces
// listen, it counts once) and each graph capture (capture/capture.h). call<Op> checks this one
// count, so that with neither on an op pays one relaxed load and a predictable branch.
inline std::atomic<int> dispatch_observers{0};

namespace trace {

// True while some DispatchTrace (or EMBER_TRACE) listens.
inline std::atomic<bool> on{false};
inline bool enabled() { return on.load(std::memory_order_relaxed); }

// Writes one line, indented to the current op's depth on this thread.
void line(std::string_view text);
template <typename... Parts>
void say(const Parts&... parts) {
  line(str_cat(parts...));
}

// One level deeper, and back: the lines of an op call, or of a backward node, sit under it.
void enter();
void leave();
// enter() while alive.
class Indent {
 public:
  Indent() { enter(); }
  ~Indent() { leave(); }
  Indent(const Indent&) = delete;
  Indent& operator=(const Indent&) = delete;
};

// The op (or backward node) whose lines are being written on this thread, for the profiler's line
// "event aten::addmm inside aten::linear": `outer` is the one around it, null at the top.
struct EnclosingOp {
  explicit EnclosingOp(const char* name);
  ~EnclosingOp();
  EnclosingOp(const EnclosingOp&) = delete;
  EnclosingOp& operator=(const EnclosingOp&) = delete;
  const char* outer;
};

// "error: <what>", once per exception however many traced calls it leaves.
void error(const std::exception& error);

// The trace's names for a tensor and its storage: "t3", "s1", given in the order first seen and
// never reused while the trace runs (a tensor freed and another made at its address is new).
std::string name_of(const Tensor& t);
std::string storage_name_of(const Tensor& t);

}  // namespace trace

// A trace while alive: lines are kept for text(), and also written to `stream` as they come when
// one is given. Traces may overlap (EMBER_TRACE's and a test's): each gets every line.
class DispatchTrace {
 public:
  DispatchTrace();
  explicit DispatchTrace(std::ostream& stream);
  ~DispatchTrace();
  DispatchTrace(const DispatchTrace&) = delete;
  DispatchTrace& operator=(const DispatchTrace&) = delete;

  std::string text() const;

  struct Sink;  // where its lines go (dispatch_trace.cpp)

 private:
  Sink* sink_;
};

}  // namespace ember
