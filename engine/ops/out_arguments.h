// What every out= variant does with the tensor the caller gives it (PyTorch's torch.add(a, b,
// out=out)): refuse it while autograd would record, since an out= call cannot be differentiated,
// and resize it to the result's shape, with PyTorch's deprecation warning when it was not empty.
// The element-wise variants are in resize.cpp, the products' next to the products (linalg.cpp,
// matmul.cpp).
#pragma once
#include <initializer_list>

#include "core/tensor.h"

namespace ember::internal {

// First of all (autograd's VariableType kernel runs before the op's): "add(): functions with
// out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
void check_no_autograd(const char* op, std::initializer_list<const Tensor*> arguments);
// "Expected out tensor to have dtype float, but got double instead": a product's out must have its dtype.
void check_out_dtype(const Tensor& out, DType dtype);
// at::native::resize_output: below autograd, so an out that requires grad is resized too.
void resize_output(Tensor& out, const Dims& shape);

}  // namespace ember::internal
