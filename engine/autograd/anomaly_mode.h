// Anomaly mode: for finding the forward op behind a NaN gradient (PyTorch's detect_anomaly). While
// it is on, each node remembers where it was made (the op, and the record_function ranges open at
// the time: the portable part of PyTorch's Python traceback, as GCC 12 has no <stacktrace>), and
// in backward a node whose gradient for one of its inputs has a NaN raises PyTorch's
//   Function 'DivBackward0' returned nan values in its 1th output.
// after warning "Error detected in DivBackward0. Traceback of forward call that caused the error:"
// and that trace (any error raised while a node runs gets the warning). Off, it costs one bool
// check per recorded node and per named range.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "formula_helpers.h"

namespace ember::autograd {

struct Node;

namespace detail {
inline std::atomic<bool> anomaly_enabled{false};
inline std::atomic<bool> anomaly_checks_nan{true};
}  // namespace detail

inline bool is_anomaly_enabled() { return detail::anomaly_enabled.load(std::memory_order_relaxed); }
// PyTorch's torch.autograd.set_detect_anomaly(mode, check_nan=True).
void set_detect_anomaly(bool enabled, bool check_nan = true);

// Anomaly mode on for a scope (torch.autograd.detect_anomaly()), with PyTorch's warning that it
// slows things down; the previous setting comes back at the end.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool previous_enabled_, previous_check_nan_;
};

// Where a node was made, kept only in anomaly mode: the op and the ranges open around it, the
// frontend's own trace of the call (Python's traceback) where it gives one, and, for a node made
// while another node's formula ran (a gradient's own graph, under create_graph), that node's trace
// (PyTorch's "parent").
struct ForwardTrace {
  std::string op;                   // "aten::div"
  std::vector<std::string> ranges;  // record_function names, outermost first
  std::string stack;                // the frontend's trace of the forward call, or empty
  std::string parent_name;          // the node whose formula was running, or empty
  std::shared_ptr<const ForwardTrace> parent;
};
// A frontend's trace of the current call, recorded with each node in anomaly mode (the Python
// binding gives Python's traceback, as PyTorch records it); none by default.
void set_forward_stack_capture(std::function<std::string()> capture);
// Called for each node recorded while anomaly mode is on.
void record_forward_trace(Node& node, const char* op);

// Runs `evaluate` (a node's hooks and formula) as anomaly mode requires: a NaN in the gradients it
// returns raises PyTorch's error, and any error first warns with the node's forward trace.
Grads evaluate_checked(const Node& node, const std::function<Grads()>& evaluate);

}  // namespace ember::autograd
