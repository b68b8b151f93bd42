// Element-wise kernels. The op layer has already chosen the result dtype, broadcast the inputs to
// the output's sizes (zero strides) and converted them to the compute dtype (float32, float64 or
// int64), so each kernel is one formula applied element by element.
#pragma once
#include "core/tensor.h"

namespace ember::kernels {

enum class BinaryOp { Add, Sub, Mul, Div };  // Add/Sub: a + alpha * b, a - alpha * b
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
enum class UnaryOp { Neg, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, Pow };

namespace cpu {

// out = a (op) b; out may alias a (in-place ops pass out == a).
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);
// out (bool) = a (op) b
void compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b);
// out = op(in); in and out contiguous with the same dtype. `exponent` is used by Pow.
void unary(UnaryOp op, const Tensor& out, const Tensor& in, double exponent = 0);
// out = condition ? a : b
void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
// out = self <= threshold ? 0 : grad: relu's gradient in one pass. All three have out's sizes and
// its dtype, float32 or float64.
void threshold_backward(const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold);

}  // namespace cpu

}  // namespace ember::kernels
