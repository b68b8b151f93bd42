// The device checks ops make first (see device_checks.h).
#include "device_checks.h"

namespace ember::internal {

void check_same_device(const Tensor& a, const Tensor& b) {
  if (a.device() == b.device()) return;
  // 0-dim CPU tensors may be combined with tensors on any device, as in PyTorch.
  if (b.dim() == 0 && b.device().is_cpu()) return;
  if (a.dim() == 0 && a.device().is_cpu()) return;
  throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ",
                      a.device().str(), " and ", b.device().str(), "!"));
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
