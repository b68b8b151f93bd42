// The tensors an op makes for its kernels: fresh outputs laid out as PyTorch lays them out, and
// operands brought to the dtype, shape or layout a kernel reads. None of these record autograd
// (they are the op's own business, below the dispatcher's autograd step); users never need them.
#pragma once
#include "core/memory_layout.h"
#include "core/tensor.h"

namespace ember::internal {

// A fresh contiguous tensor (inference tensor inside InferenceMode), never requiring grad.
Tensor new_empty(const Dims& sizes, DType dtype, Device device = kCPU);
// A fresh tensor with the given dense strides (a permutation of contiguous strides, from
// memory_layout.h), never requiring grad.
Tensor new_empty_strided(const Dims& sizes, const Dims& strides, DType dtype, Device device = kCPU);
// The same for any strides (gaps, overlaps): a storage spanning the furthest element (empty_strided).
Tensor new_empty_with_strides(const Dims& sizes, const Dims& strides, DType dtype, Device device = kCPU);
// A fresh tensor laid out like t (empty_like with memory_format=preserve): what clone and
// to(dtype) return.
Tensor new_empty_like(const Tensor& t, DType dtype);
// The same, each recorded as the ATen factory call PyTorch's profiler shows where ATen's op makes
// it (recorded_allocations.cpp): empty_strided; empty_like (around empty_strided for Preserve,
// else around empty); empty. Only where ember's op allocates as ATen's does: clone, the factories.
Tensor recorded_empty(const Dims& sizes, DType dtype, Device device = kCPU);
Tensor recorded_empty_strided(const Dims& sizes, const Dims& strides, DType dtype, Device device);
Tensor recorded_empty_like(const Tensor& t, MemoryFormat memory_format);
// The output of an element-wise op of `shape` over `inputs`, laid out as PyTorch's TensorIterator
// lays it out (a permuted input gives a permuted result).
template <typename... Inputs>
Tensor new_elementwise_output(const Dims& shape, DType dtype, Device device, const Inputs&... inputs) {
  // The common case first, from each tensor's cached flag: contiguous inputs of the output's shape.
  if (((inputs.is_contiguous() && inputs.sizes() == shape) && ...)) return new_empty(shape, dtype, device);
  const Layout layouts[] = {Layout{inputs.sizes(), inputs.strides()}...};
  return new_empty_strided(shape, elementwise_output_strides(shape, layouts), dtype, device);
}
// A 0-dim tensor holding `value` as `dtype`, filled on `device` by its fill kernel, which takes the
// value as an argument: nothing is copied from the host, and nothing waits for the device.
Tensor scalar(Scalar value, DType dtype, Device device = kCPU);
// t on `device` for an element-wise op whose common device that is (device_checks.h): t itself, or
// a 0-dim CPU operand's value as a scalar made there, as PyTorch's CUDA kernels take a CPU scalar
// by value. (t.to(device) would copy from the host and wait for the device, every call.)
Tensor on_device(const Tensor& t, Device device);
// In-place ops on a tensor (or a view of one) that a factory or a derivative formula has just made:
// shown by the profiler, version left at 0, as PyTorch runs them below autograd (dispatch.h,
// call_on_new_tensor). Each is defined beside its op: fill_ and zero_ (pointwise.cpp), copy_ (copies.cpp),
// scatter_ along `dim` with index and src of self's sizes but 1 at `dim` (reduce.cpp).
void fill_new_tensor(const Tensor& fresh, Scalar value);
void zero_new_tensor(const Tensor& fresh);
void copy_into_new_tensor(const Tensor& fresh, const Tensor& src);
void scatter_into_new_tensor(const Tensor& fresh, int64_t dim, const Tensor& index, const Tensor& src);
// PyTorch's checked conversion of a number written into a tensor (fill_, full, scalar_tensor):
// "value cannot be converted to type int64_t without overflow" for NaN or out-of-range values
// (infinities are fine for floating dtypes; anything converts to bool).
void check_fits(Scalar value, DType dtype);
// A factory's last step: move to the requested device (where it was not made there), then require
// grad if asked (PyTorch's "Only Tensors of floating point and complex dtype can require gradients"
// otherwise).
Tensor finish_factory(Tensor made, const Options& options);

// A *_like factory with options: `make` applied to t, or to an empty tensor of t's sizes with the
// dtype and device the options give (t's where they give none), then requires_grad if asked.
Tensor like(const Tensor& t, const Options& options, const std::function<Tensor(const Tensor&)>& make);

// An alias of t's storage with t's layout and no autograd data (what detach() returns).
Tensor alias(const Tensor& t);
// t's storage with another layout, sharing t's version counter, without autograd or a profiler step:
// every alias, view and restrided operand is one of these.
Tensor alias_with_layout(const Tensor& t, const Dims& sizes, const Dims& strides, int64_t offset);
// The same, recorded as ATen's aten::as_strided step in a profile: what a view op makes before the
// dispatcher records it.
Tensor view_with_layout(const Tensor& t, const Dims& sizes, const Dims& strides, int64_t offset);
// t's storage and layout with a version counter of its own: Tensor::data(), and unsafe_split's
// pieces (which autograd does not treat as views).
Tensor alias_with_new_version(const Tensor& t);
// t viewed with the broadcast `sizes` (zero strides), without autograd.
Tensor broadcast_to(const Tensor& t, const Dims& sizes);
// t converted to `dtype` (t itself when it already has it), laid out like t, without autograd.
Tensor converted(const Tensor& t, DType dtype);
// t made contiguous (t itself when it already is), without autograd.
Tensor contiguous(const Tensor& t);
// t as `dtype` with exactly the given dense strides: t itself when it already is, else a copy
// (so that a kernel can read it and an output with those strides as flat arrays).
Tensor with_layout(const Tensor& t, DType dtype, const Dims& strides);

}  // namespace ember::internal
