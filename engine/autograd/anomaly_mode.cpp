// Anomaly mode (see anomaly_mode.h): the switch, the forward trace each node keeps, and the checks
// around a node's evaluation, with PyTorch 1.13's texts (torch/autograd/anomaly_mode.py,
// torch/csrc/autograd/engine.cpp and python_anomaly_mode.cpp).
#include "anomaly_mode.h"

#include <cmath>

#include "core/warning.h"
#include "node.h"
#include "profiler/profiler.h"

namespace ember::autograd {

namespace {

std::function<std::string()>& stack_capture() {
  static std::function<std::string()> capture;
  return capture;
}

// The trace of a forward call: the frontend's, or the ranges and the op.
std::string call_text(const ForwardTrace& trace) {
  if (!trace.stack.empty()) return trace.stack;
  std::string text;
  for (const std::string& range : trace.ranges) text += str_cat("  in record_function(\"", range, "\")\n");
  return text + str_cat("  ", trace.op);
}

// PyTorch's warnings for a node whose formula failed: its forward call, then the calls that
// induced it, node by node.
void warn_traces(const Node& node) {
  if (!node.forward_trace) {
    warn(str_cat("Error detected in ", node.name(),
                 ". No forward pass information available. Enable detect anomaly during forward pass for more "
                 "information."));
    return;
  }
  warn(str_cat("Error detected in ", node.name(), ". Traceback of forward call that caused the error:\n",
               call_text(*node.forward_trace)));
  for (const ForwardTrace* trace = node.forward_trace.get(); trace->parent; trace = trace->parent.get())
    warn(str_cat("\n\nPrevious calculation was induced by ", trace->parent_name,
                 ". Traceback of forward call that induced the previous calculation:\n", call_text(*trace->parent)));
}

bool has_nan(const Tensor& t) {
  if (!t.defined() || !t.is_floating_point()) return false;
  for (double value : t.to_vector<double>())
    if (std::isnan(value)) return true;
  return false;
}

}  // namespace

void set_detect_anomaly(bool enabled, bool check_nan) {
  detail::anomaly_enabled.store(enabled, std::memory_order_relaxed);
  detail::anomaly_checks_nan.store(check_nan, std::memory_order_relaxed);
  profiler::keep_range_names(enabled);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : previous_enabled_(is_anomaly_enabled()),
      previous_check_nan_(detail::anomaly_checks_nan.load()) {
  warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for "
       "debugging.");
  set_detect_anomaly(true, check_nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { set_detect_anomaly(previous_enabled_, previous_check_nan_); }

void set_forward_stack_capture(std::function<std::string()> capture) { stack_capture() = std::move(capture); }

void record_forward_trace(Node& node, const char* op) {
  ForwardTrace trace{op, profiler::open_range_names(), stack_capture() ? stack_capture()() : "", "", nullptr};
  if (const auto& parent = running_node(); parent && parent->forward_trace) {
    trace.parent_name = parent->name();
    trace.parent = parent->forward_trace;
  }
  node.forward_trace = std::make_shared<const ForwardTrace>(std::move(trace));
}

Grads evaluate_checked(const Node& node, const std::function<Grads()>& evaluate) {
  try {
    Grads grads = evaluate();
    if (detail::anomaly_checks_nan.load(std::memory_order_relaxed)) {
      for (size_t i = 0; i < grads.size(); ++i)
        EMBER_CHECK(!has_nan(grads[i]), "Function '", node.name(), "' returned nan values in its ", i, "th output.");
    }
    return grads;
  } catch (const std::exception&) {
    warn_traces(node);
    throw;
  }
}

}  // namespace ember::autograd
