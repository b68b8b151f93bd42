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

std::string trace_text(const Node& node) {
  if (!node.forward_trace)
    return str_cat("Error detected in ", node.name(),
                   ". No forward pass information available. Enable detect "
                   "anomaly during forward pass for more information.");
  std::string text = str_cat("Error detected in ", node.name(), ". Traceback of forward call that caused the error:\n");
  for (const std::string& range : node.forward_trace->ranges)
    text += str_cat("  in record_function(\"", range, "\")\n");
  return text + str_cat("  ", node.forward_trace->op);
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

void record_forward_trace(Node& node, const char* op) {
  node.forward_trace = std::make_shared<const ForwardTrace>(ForwardTrace{op, profiler::open_range_names()});
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
    warn(trace_text(node));
    throw;
  }
}

}  // namespace ember::autograd
