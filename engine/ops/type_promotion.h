// Which dtype an op's result has and which dtype its kernel computes in: PyTorch's type promotion
// (c10's promoteTypes and ATen's result_type, with its wrapped-number rule) and the compute dtype
// of 16-bit floats and bool.
#pragma once
#include <functional>
#include <initializer_list>

#include "core/tensor.h"

namespace ember::internal {

// The dtype kernels compute `dtype` in: 16-bit floats in float32, bool and every integer type in
// int64 (narrowing the int64 result back wraps as the narrow type's own arithmetic would).
DType compute_dtype(DType dtype);

// PyTorch's result_type: dimensioned tensors decide within a category, 0-dim tensors and plain
// numbers only lift the category (float32 [3] + float64 0-dim -> float32; int64 + 2.5 -> float32).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);
// The same over any number of tensors at once (addcmul's three), as TensorIterator promotes them.
DType result_type(std::initializer_list<std::reference_wrapper<const Tensor>> tensors);
// A result of dtype `result` may be written into a tensor of dtype `out` unless that narrows its
// category (float into int64, anything but bool into bool): PyTorch's canCast.
void check_can_cast(DType result, DType out);

}  // namespace ember::internal
