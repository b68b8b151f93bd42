// The checking device's kernel table (engine/core/checking_device.h): every kernel of the list is
// the CPU's, run after checking each tensor it is handed, outputs and operands alike:
//   - it is on a checking device, the same as the kernel's other tensors;
//   - the bytes it covers lie in a block that device's allocator has handed out.
// So a host-side mistake about devices that a GPU would meet as an illegal address, or silently
// as wrong numbers (a CPU scalar's pointer handed to a device kernel, an output made on the
// CPU), fails here on any machine, naming the kernel, the argument and both devices in the words
// of PyTorch's device guard.
#include <string>
#include <string_view>
#include <type_traits>

#include "backend.h"
#include "core/checking_device.h"
#include "core/size_arithmetic.h"

namespace ember::kernels {
namespace {

// The name of parameter `index` in a parameter list as kernel_list.h writes it,
// "(BinaryOp op, const Tensor& out, ...)": the last word before its comma.
std::string parameter_name(std::string_view parameters, size_t index) {
  parameters = parameters.substr(1, parameters.size() - 2);
  for (size_t i = 0; i < index; ++i) parameters.remove_prefix(parameters.find(',') + 1);
  parameters = parameters.substr(0, parameters.find(','));
  return std::string(parameters.substr(parameters.find_last_of(" &") + 1));
}

void check_tensor(const char* kernel, const char* parameters, size_t index, const Tensor& t, Device common) {
  if (!t.defined()) return;
  const Device device = t.device();
  if (device != common)
    throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ", common.str(),
                        " and ", device.str(), "! (when checking argument for argument ",
                        parameter_name(parameters, index), " in kernel ", kernel, ")"));
  if (t.numel() == 0) return;
  const int64_t nbytes = storage_nbytes(t.sizes(), t.strides(), t.element_size());
  if (!checking_device::holds(device.index, t.raw_data(), nbytes))
    throw Error(str_cat("ember: argument ", parameter_name(parameters, index), " of kernel ", kernel, " is on ",
                        device.str(), " but its bytes are not in a block of ", device.str(), "'s allocator"));
}

template <typename T>
constexpr bool is_tensor = std::is_same_v<std::decay_t<T>, Tensor>;

// Every tensor argument on the device of the first one on a checking device (checked:0 if none is).
template <typename... Args>
void check_arguments(const char* kernel, const char* parameters, const Args&... args) {
  Device common = checked_device(0);
  bool found = false;
  auto first_on_checking_device = [&](const auto& arg) {
    if constexpr (is_tensor<decltype(arg)>)
      if (!found && arg.defined() && arg.device().is_checked()) common = arg.device(), found = true;
  };
  (first_on_checking_device(args), ...);
  size_t index = 0;
  auto check = [&](const auto& arg) {
    if constexpr (is_tensor<decltype(arg)>) check_tensor(kernel, parameters, index, arg, common);
    ++index;
  };
  (check(args), ...);
}

}  // namespace

void register_checking_kernels(KernelTable& table) {
#define EMBER_CHECKED_KERNEL(name, result, parameters) \
  table.name = [](auto... args) -> result {            \
    check_arguments(#name, #parameters, args...);      \
    return cpu::name(args...);                         \
  };
  EMBER_KERNELS(EMBER_CHECKED_KERNEL)
#undef EMBER_CHECKED_KERNEL
}

}  // namespace ember::kernels
