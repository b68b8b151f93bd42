// Copying elements between CPU tensors of the same sizes and any strides and dtypes, and filling.
// Every copy the op layer makes (contiguous, clone, casts, copy_) ends here.
#pragma once
#include "convert.h"
#include "core/tensor.h"

namespace ember::kernels {

namespace cpu {
// dst[i] = convert(src[i]); dst and src have equal sizes (src may have zero strides).
void copy(const Tensor& dst, const Tensor& src);
// dst[i] = value
void fill(const Tensor& dst, Scalar value);
}  // namespace cpu

}  // namespace ember::kernels
