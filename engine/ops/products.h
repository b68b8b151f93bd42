// What linalg.cpp's primitive products offer the composite matmul (matmul.cpp): its 1-D cases,
// PyTorch's dot and mv, which ember does not make public yet.
#pragma once
#include "core/tensor.h"

namespace ember::internal {

Tensor dot(const Tensor& a, const Tensor& b);           // two 1-D tensors of one length
Tensor mv(const Tensor& matrix, const Tensor& vector);  // a 2-D matrix times a 1-D vector

}  // namespace ember::internal
