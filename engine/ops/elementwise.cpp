// The shared path of the element-wise ops (see elementwise.h).
#include "elementwise.h"

#include <algorithm>
#include <vector>

#include "api/new_tensors.h"
#include "core/memory_overlap.h"
#include "device_checks.h"
#include "kernels/backend.h"
#include "shape_rules.h"
#include "type_promotion.h"

namespace ember::elementwise {

namespace {

DType binary_result_dtype(BinaryOp op, DType promoted) {
  // True division and atan2 of integers give the default floating dtype.
  if ((op == BinaryOp::Div || op == BinaryOp::Atan2) && !is_floating_point(promoted)) return get_default_dtype();
  return promoted;
}

void check_alpha(Scalar alpha, DType result) {
  EMBER_CHECK(is_floating_point(result) || !alpha.is_floating_point(),
              "For integral input tensors, argument alpha must not be a floating point number.");
}

DType scalar_result_dtype(BinaryOp op, const Tensor& a, Scalar b) {
  return binary_result_dtype(op, internal::result_type(a, b));
}

}  // namespace

void check_bool_subtraction(BinaryOp op, DType a, DType b) {
  if (op != BinaryOp::Sub) return;
  EMBER_CHECK(a != kBool || b != kBool,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
              "operator instead.");
  EMBER_CHECK(a != kBool && b != kBool,
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead.");
}

namespace {
// floor_divide and remainder refuse bool, and an integer divisor of zero, as ATen's kernels do.
void check_division(BinaryOp op, const Tensor& divisor, DType result) {
  EMBER_CHECK(result != kBool, "\"", op == BinaryOp::FloorDivide ? "div_floor" : "remainder", "_",
              divisor.device().type_name(), "\" not implemented for 'Bool'");
  if (!is_integral(result, false)) return;
  const std::vector<int64_t> values = divisor.to_vector<int64_t>();
  EMBER_CHECK(std::find(values.begin(), values.end(), 0) == values.end(), "ZeroDivisionError");
}
}  // namespace

Tensor compute_binary(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha, DType result) {
  if (op == BinaryOp::FloorDivide || op == BinaryOp::Remainder) check_division(op, b, result);
  // PyTorch casts alpha to the result's dtype: for bool, any non-zero alpha is true (add(True, True,
  // alpha=-1) is True, where -1 * 1 + 1 in int64 would be 0).
  if (result == kBool) alpha = alpha.toBool();
  if ((result == kBFloat16 || result == kFloat16) && alpha.to_double() != 1) {
    // PyTorch's 16-bit add and sub take alpha in the result's dtype. bfloat16 then computes
    // a + alpha * b in float32 and rounds once; float16 (c10::Half arithmetic) rounds alpha * b
    // to float16 first.
    if (result == kFloat16) {
      const Tensor alpha_in_dtype = internal::scalar(alpha, result, b.device());
      return compute_binary(op, a, compute_binary(BinaryOp::Mul, b, alpha_in_dtype, 1, result), 1, result);
    }
    alpha = internal::scalar(alpha, result).item<double>();  // rounded to bfloat16 on the host
  }
  const Dims shape = a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
  const DType compute = internal::compute_dtype(result);
  Tensor out = internal::new_elementwise_output(shape, compute, a.device(), a, b);
  const kernels::KernelTable& kernels = kernels::on(out.device());
  if (a.dtype() == compute && b.dtype() == compute && a.sizes() == shape && b.sizes() == shape) {
    kernels.binary(op, out, a, b, alpha);  // the common case: nothing to convert or broadcast
    return out;
  }
  // TensorIterator casts every operand to the result's dtype first, so a float32 operand of a
  // bfloat16 result is rounded to bfloat16 before the op computes in float32.
  auto operand = [&](const Tensor& t) {
    const Tensor in_result = compute != result ? internal::converted(t, result) : t;
    return internal::broadcast_to(internal::converted(in_result, compute), shape);
  };
  kernels.binary(op, out, operand(a), operand(b), alpha);
  return internal::converted(out, result);
}

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha) {
  if (a.device() != b.device()) [[unlikely]] {  // a 0-dim CPU operand joins the common device by value
    const Device device = internal::common_device({a, b});
    return binary(op, internal::on_device(a, device), internal::on_device(b, device), alpha);
  }
  check_bool_subtraction(op, a.dtype(), b.dtype());
  if (a.sizes() != b.sizes()) broadcast_shapes(a.sizes(), b.sizes());  // its error comes before alpha's
  const DType result = binary_result_dtype(op, internal::result_type(a, b));
  check_alpha(alpha, result);
  return compute_binary(op, a, b, alpha, result);
}

Tensor wrapped_number(BinaryOp op, const Tensor& a, Scalar b) {
  return internal::scalar(b, scalar_result_dtype(op, a, b), a.device());
}
Tensor binary_with_number(BinaryOp op, const Tensor& a, Scalar b) {
  check_bool_subtraction(op, a.dtype(), b.kind());
  return compute_binary(op, a, wrapped_number(op, a, b), 1, scalar_result_dtype(op, a, b));
}

void binary_in_place(BinaryOp op, const Tensor& self, const Tensor& other, Scalar alpha) {
  if (self.device() != other.device()) [[unlikely]] {  // a 0-dim CPU `other` joins self's device by value
    const Device device = internal::common_device({self, other});
    if (self.device() != device) internal::device_mismatch(device, self.device());  // self is the output
    return binary_in_place(op, self, internal::on_device(other, device), alpha);
  }
  check_bool_subtraction(op, self.dtype(), other.dtype());
  internal::check_writable(self, other);
  // TensorIterator's order: overlap, then shape, then dtype.
  const Dims shape = broadcast_shapes(self.sizes(), other.sizes());
  EMBER_CHECK(shape == self.sizes(), "output with shape ", to_string(self.sizes()),
              " doesn't match the broadcast shape ", to_string(shape));
  const DType result = binary_result_dtype(op, internal::result_type(self, other));
  internal::check_can_cast(result, self.dtype());
  check_alpha(alpha, result);
  const kernels::KernelTable& kernels = kernels::on(self.device());
  if (internal::compute_dtype(self.dtype()) == self.dtype() && self.dtype() == result)
    kernels.binary(op, self, self, internal::broadcast_to(internal::converted(other, self.dtype()), shape), alpha);
  else kernels.copy(self, compute_binary(op, self, other, alpha, result));
}

void binary_with_number_in_place(BinaryOp op, const Tensor& self, Scalar other) {
  check_bool_subtraction(op, self.dtype(), other.kind());
  internal::check_writable(self, Tensor());
  internal::check_can_cast(binary_result_dtype(op, internal::result_type(self, other)), self.dtype());
  Tensor number = internal::scalar(other, self.dtype(), self.device());  // a wrapped number, as in binary_with_number
  const kernels::KernelTable& kernels = kernels::on(self.device());
  if (internal::compute_dtype(self.dtype()) == self.dtype())
    kernels.binary(op, self, self, internal::broadcast_to(number, self.sizes()), 1);
  else kernels.copy(self, compute_binary(op, self, number, 1, self.dtype()));
}

Tensor unary(UnaryOp op, const Tensor& a, DType result, double exponent) {
  const DType compute = internal::compute_dtype(result);
  Tensor out = internal::new_elementwise_output(a.sizes(), compute, a.device(), a);
  Tensor input = internal::with_layout(a, compute, out.strides());
  kernels::on(out.device()).unary(op, out, input, exponent);
  return internal::converted(out, result);
}

void unary_in_place(UnaryOp op, const Tensor& self, DType result) {
  internal::check_writable(self, Tensor());
  internal::check_can_cast(result, self.dtype());
  const kernels::KernelTable& kernels = kernels::on(self.device());
  // The kernel reads and writes flat arrays: in place for a contiguous self of its compute dtype.
  if (self.is_contiguous() && internal::compute_dtype(self.dtype()) == self.dtype()) kernels.unary(op, self, self, 0);
  else kernels.copy(self, unary(op, self, result));
}

Tensor compare(CompareOp op, const Tensor& a, const Tensor& b) {
  if (a.device() != b.device()) [[unlikely]] {  // a 0-dim CPU operand joins the common device by value
    const Device device = internal::common_device({a, b});
    return compare(op, internal::on_device(a, device), internal::on_device(b, device));
  }
  const DType compute = internal::compute_dtype(internal::result_type(a, b));
  const Dims shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = internal::new_elementwise_output(shape, kBool, a.device(), a, b);
  kernels::on(out.device())
      .compare(op, out, internal::broadcast_to(internal::converted(a, compute), shape),
               internal::broadcast_to(internal::converted(b, compute), shape));
  return out;
}

DType floating_result(const Tensor& a) { return a.is_floating_point() ? a.dtype() : get_default_dtype(); }

}  // namespace ember::elementwise
