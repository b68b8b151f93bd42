// The device checks ops make before anything else, in PyTorch's two forms: TensorIterator's for
// element-wise ops, and the generated device guard's for mm, addmm, bmm, layer_norm and nll_loss,
// which names the argument and the method.
#pragma once
#include <functional>
#include <initializer_list>

#include "core/tensor.h"

namespace ember::internal {

// "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
// (element-wise ops: PyTorch's TensorIterator form, where a 0-dim CPU tensor may join any device).
void check_same_device(const Tensor& a, const Tensor& b);
[[noreturn]] void device_mismatch(Device first, Device second);  // that error
// The device an element-wise op computes on and makes its output on, as TensorIterator chooses
// it: that of the first operand that is not a 0-dim CPU tensor (the CPU when all are), after the
// check above between it and every other operand. A 0-dim CPU operand then joins the op by value
// (new_tensors.h, on_device).
Device common_device(std::initializer_list<std::reference_wrapper<const Tensor>> operands);
// The form of PyTorch's generated device guard (mm, addmm, bmm), checked before anything else: the
// first argument's device is the common one, and the first argument elsewhere is named, "...
// cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_addmm)".
struct NamedArgument {
  const char* name;
  const Tensor& tensor;
};
void check_same_device(std::initializer_list<NamedArgument> arguments, const char* method);

}  // namespace ember::internal
