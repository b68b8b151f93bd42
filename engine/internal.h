// Helpers the op implementations share and users do not need: fresh tensors and plain copies
// for kernels' inputs and outputs (these record no autograd), and the argument checks many ops make.
#pragma once
#include "ops.h"

namespace ember::internal {

// A fresh contiguous tensor (inference tensor inside InferenceMode), never requiring grad.
Tensor new_empty(const Dims& sizes, DType dtype, Device device = kCPU);
// An alias of t's storage with t's layout and no autograd data (what detach() returns).
Tensor alias(const Tensor& t);
// t viewed with the broadcast `sizes` (zero strides), without autograd.
Tensor broadcast_to(const Tensor& t, const Dims& sizes);
// t converted to `dtype` (t itself when it already has it), without autograd.
Tensor converted(const Tensor& t, DType dtype);
// t made contiguous (t itself when it already is), without autograd.
Tensor contiguous(const Tensor& t);
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

// "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
void check_same_device(const Tensor& a, const Tensor& b);

}  // namespace ember::internal
