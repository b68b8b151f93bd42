// The device checks ops make first (see device_checks.h).
#include "device_checks.h"

namespace ember::internal {

namespace {
bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }
}  // namespace

void check_same_device(const Tensor& a, const Tensor& b) {
  if (a.device() == b.device()) return;
  // 0-dim CPU tensors may be combined with tensors on any device, as in PyTorch.
  if (is_cpu_scalar(a) || is_cpu_scalar(b)) return;
  device_mismatch(a.device(), b.device());
}

void device_mismatch(Device first, Device second) {
  throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ", first.str(),
                      " and ", second.str(), "!"));
}

Device common_device(std::initializer_list<std::reference_wrapper<const Tensor>> operands) {
  const Tensor* first = nullptr;
  for (const Tensor& t : operands)
    if (t.defined() && !is_cpu_scalar(t) && first == nullptr) first = &t;
  if (first == nullptr) return kCPU;
  for (const Tensor& t : operands)
    if (t.defined()) check_same_device(*first, t);
  return first->device();
}

void check_same_device(std::initializer_list<NamedArgument> arguments, const char* method) {
  const Device common = arguments.begin()->tensor.device();
  for (const NamedArgument& argument : arguments)
    if (argument.tensor.defined() && argument.tensor.device() != common)
      throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ",
                          common.str(), " and ", argument.tensor.device().str(),
                          "! (when checking argument for argument ", argument.name, " in method ", method, ")"));
}

}  // namespace ember::internal
