// Helpers the op implementations share and users do not need: fresh tensors and plain copies
// for kernels' inputs and outputs (these record no autograd), and the argument checks many ops make.
#pragma once
#include <initializer_list>

#include "core/memory_layout.h"
#include "ops.h"

namespace ember::internal {

// A fresh contiguous tensor (inference tensor inside InferenceMode), never requiring grad.
Tensor new_empty(const Dims& sizes, DType dtype, Device device = kCPU);
// A fresh tensor with the given dense strides (a permutation of contiguous strides, from
// memory_layout.h), never requiring grad.
Tensor new_empty_strided(const Dims& sizes, const Dims& strides, DType dtype, Device device = kCPU);
// A fresh tensor laid out like t (empty_like with memory_format=preserve): what clone and
// to(dtype) return.
Tensor new_empty_like(const Tensor& t, DType dtype);
// The output of an element-wise op of `shape` over `inputs`, laid out as PyTorch's TensorIterator
// lays it out (a permuted input gives a permuted result).
template <typename... Inputs>
Tensor new_elementwise_output(const Dims& shape, DType dtype, Device device, const Inputs&... inputs) {
  const Layout layouts[] = {Layout{inputs.sizes(), inputs.strides()}...};
  return new_empty_strided(shape, elementwise_output_strides(shape, layouts), dtype, device);
}
// t as `dtype` with exactly the given dense strides: t itself when it already is, else a copy
// (so that a kernel can read it and an output with those strides as flat arrays).
Tensor with_layout(const Tensor& t, DType dtype, const Dims& strides);
// An alias of t's storage with t's layout and no autograd data (what detach() returns).
Tensor alias(const Tensor& t);
// t viewed with the broadcast `sizes` (zero strides), without autograd.
Tensor broadcast_to(const Tensor& t, const Dims& sizes);
// t converted to `dtype` (t itself when it already has it), laid out like t, without autograd.
Tensor converted(const Tensor& t, DType dtype);
// t made contiguous (t itself when it already is), without autograd.
Tensor contiguous(const Tensor& t);
// fill_ on a tensor a factory has just made: shown by the profiler, version left at 0 (dispatch.h,
// call_on_new_tensor).
void fill_new_tensor(const Tensor& fresh, Scalar value);
// PyTorch's checked conversion of a number written into a tensor (fill_, full, scalar_tensor):
// "value cannot be converted to type int64_t without overflow" for NaN or out-of-range values
// (infinities are fine for floating dtypes; anything converts to bool).
void check_fits(Scalar value, DType dtype);
// A 0-dim tensor holding `value` as `dtype`.
Tensor scalar(Scalar value, DType dtype, Device device = kCPU);

// The dtype kernels compute `dtype` in: 16-bit floats and bool in float32 / int64.
DType compute_dtype(DType dtype);

// PyTorch's result_type: dimensioned tensors decide within a category, 0-dim tensors and plain
// numbers only lift the category (float32 [3] + float64 0-dim -> float32; int64 + 2.5 -> float32).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);
// A result of dtype `result` may be written into a tensor of dtype `out` unless that narrows its
// category (float into int64, anything but bool into bool): PyTorch's canCast.
void check_can_cast(DType result, DType out);

// A factory's last step: move to the requested device, then require grad if asked (PyTorch's
// "Only Tensors of floating point and complex dtype can require gradients" otherwise).
Tensor finish_factory(Tensor cpu, const Options& options);

// An in-place write must not hit one memory location twice (an expanded tensor) ...
void check_no_internal_overlap(const Tensor& written);
// ... nor read from memory it is writing unless it reads exactly the same elements.
void check_no_partial_overlap(const Tensor& written, const Tensor& read);

// A double as Python's repr() writes it ("2.0", "0.1", "1e+20"), for messages PyTorch's Python
// side formats (printing.cpp).
std::string python_float_repr(double value);

// "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
// (element-wise ops: PyTorch's TensorIterator form, where a 0-dim CPU tensor may join any device).
void check_same_device(const Tensor& a, const Tensor& b);
// The form of PyTorch's generated device guard (mm, addmm, bmm), checked before anything else: the
// first argument's device is the common one, and the first argument elsewhere is named, "...
// cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_addmm)".
struct NamedArgument {
  const char* name;
  const Tensor& tensor;
};
void check_same_device(std::initializer_list<NamedArgument> arguments, const char* method);

}  // namespace ember::internal
