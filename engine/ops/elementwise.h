// The path every element-wise op shares, ATen's TensorIterator in miniature: check the devices,
// find the result dtype (PyTorch's promotion) and the broadcast shape, lay the output out as
// TensorIterator would (a permuted input gives a permuted result), bring each operand to the
// compute dtype (16-bit floats compute in float32 and round once; bool in int64), and hand the
// kernel operands of one shape. The op structs in pointwise.cpp are each a line over these.
#pragma once
#include "core/tensor.h"
#include "kernels/kernel_list.h"

namespace ember::elementwise {

using kernels::BinaryOp;
using kernels::CompareOp;
using kernels::UnaryOp;

// a (op) b, with alpha scaling b for add and sub.
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha);
// a (op) b into a fresh tensor of dtype `result`, the promotion already decided.
Tensor compute_binary(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha, DType result);
// `a (op) number`: the number becomes a 0-dim tensor of the result dtype (a "wrapped number"), so
// for a bfloat16 or float16 tensor it is rounded to that dtype before the op computes in float32,
// as in PyTorch: bf16(x) * 0.1 is x * bf16(0.1) rounded once.
Tensor binary_with_number(BinaryOp op, const Tensor& a, Scalar b);
Tensor wrapped_number(BinaryOp op, const Tensor& a, Scalar b);
// self = self (op) other, computed in self's dtype, after PyTorch's checks in TensorIterator's
// order: overlap, then shape, then dtype.
void binary_in_place(BinaryOp op, const Tensor& self, const Tensor& other, Scalar alpha);
void binary_with_number_in_place(BinaryOp op, const Tensor& self, Scalar other);
// ATen's sub_check, made before anything else about the operands (a number counts as a tensor of
// its kind: `mask - True` is two bools).
void check_bool_subtraction(BinaryOp op, DType a, DType b);

// Unary math into a `result` of the given dtype, computed in its compute dtype. The output takes
// a's layout; the kernel runs over input and output as flat arrays of the same order.
Tensor unary(UnaryOp op, const Tensor& a, DType result, double exponent = 0);
// The same written into self (exp_, relu_): refused when the result's dtype cannot be cast to self's.
void unary_in_place(UnaryOp op, const Tensor& self, DType result);
// exp, log, sqrt, ...: integers and bool give the default floating dtype.
DType floating_result(const Tensor& a);

// a (op) b into a bool tensor, both compared in their promoted compute dtype.
Tensor compare(CompareOp op, const Tensor& a, const Tensor& b);

}  // namespace ember::elementwise
