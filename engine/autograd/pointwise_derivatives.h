// The backward nodes of the element-wise ops: arithmetic, unary math and the bounds (clamp,
// maximum). One section of autograd's formulas (derivatives.h lists the sections); broadcasting
// and dtype are fixed by the engine afterwards (match_input), so `a + b`'s rule is just {g, g}.
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"
#include "saved_tensor.h"

namespace ember::autograd {

// ---- arithmetic ----
struct AddBackward0 {  // self + alpha * other
  static constexpr const char* name = "AddBackward0";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs needs) const { return {g, needs[1] ? scaled(g, alpha) : Tensor()}; }
};
struct SubBackward0 {  // self - alpha * other
  static constexpr const char* name = "SubBackward0";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs needs) const { return {g, needs[1] ? scaled(-g, alpha) : Tensor()}; }
};
struct RsubBackward1 {  // other - alpha * self, other a number
  static constexpr const char* name = "RsubBackward1";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs) const { return {scaled(-g, alpha)}; }
};
// C++'s `tensor op number` (libtorch's Scalar overloads): the number is no input and nothing is saved.
// Python passes the number as a 0-dim "wrapped number" tensor instead, and records *Backward0.
struct AddBackward1 {  // self + number
  static constexpr const char* name = "AddBackward1";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct SubBackward1 {  // self - number
  static constexpr const char* name = "SubBackward1";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct MulBackward1 {  // self * other
  static constexpr const char* name = "MulBackward1";
  Scalar other;
  Grads apply(const Tensor& g, Needs) const { return {g * other}; }
};
struct DivBackward1 {  // self / other
  static constexpr const char* name = "DivBackward1";
  Scalar other;
  Grads apply(const Tensor& g, Needs) const { return {g / other}; }
};
struct MulBackward0 {  // self * other; `other` is a 0-dim tensor when it was a number
  static constexpr const char* name = "MulBackward0";
  EMBER_SAVED_TENSORS(self, other);
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved, as PyTorch unpacks
    return {needs[0] ? g * b : Tensor(), needs[1] ? g * a : Tensor()};
  }
};
struct DivBackward0 {  // self / other
  static constexpr const char* name = "DivBackward0";
  EMBER_SAVED_TENSORS(self, other);
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved, as PyTorch unpacks
    return {needs[0] ? g / b : Tensor(), needs[1] ? -g * a / (b * b) : Tensor()};
  }
};
struct Atan2Backward0 {  // d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
  static constexpr const char* name = "Atan2Backward0";
  EMBER_SAVED_TENSORS(self, other);
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor y = self.unpack(), x = other.unpack();  // in the order saved, as PyTorch unpacks
    const Tensor reciprocal = pow(y * y + x * x, -1);    // PyTorch's atan2_backward
    return {needs[0] ? g * x * reciprocal : Tensor(), needs[1] ? g * -y * reciprocal : Tensor()};
  }
};
struct RemainderBackward0 {  // remainder(self, number): a step function plus self
  static constexpr const char* name = "RemainderBackward0";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct RemainderBackward1 {  // remainder(self, other) = self - floor_divide(self, other) * other
  static constexpr const char* name = "RemainderBackward1";
  EMBER_SAVED_TENSORS(self, other);
  Grads apply(const Tensor& g, Needs needs) const {
    // floor_divide is a step function: detached, so a second derivative sees a constant (0).
    const Tensor a = self.unpack(), b = other.unpack();
    return {g, needs[1] ? -g * floor_divide(a.detach(), b.detach()) : Tensor()};
  }
};
struct AddcmulBackward0 {  // self + value * tensor1 * tensor2; each tensor saved only for the other's gradient
  static constexpr const char* name = "AddcmulBackward0";
  EMBER_SAVED_TENSORS(tensor1, tensor2);
  Scalar value = 1;
  Grads apply(const Tensor& g, Needs needs) const {
    return {g, needs[1] ? g * (tensor2.unpack() * value) : Tensor(),
            needs[2] ? g * (tensor1.unpack() * value) : Tensor()};
  }
};
struct AddcdivBackward0 {  // self + value * tensor1 / tensor2
  static constexpr const char* name = "AddcdivBackward0";
  EMBER_SAVED_TENSORS(tensor1, tensor2);
  Scalar value = 1;
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor t2 = tensor2.unpack(), t1 = tensor1.unpack();  // in the order saved (PyTorch's)
    return addcdiv_backward(g, t1, t2, value, needs);
  }
};
struct NegBackward0 {
  static constexpr const char* name = "NegBackward0";
  Grads apply(const Tensor& g, Needs) const { return {-g}; }
};

// ---- unary math ----
struct ExpBackward0 {  // d exp(x) = exp(x)
  static constexpr const char* name = "ExpBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return {g * unpack_output(result)}; }
};
struct LogBackward0 {  // d log(x) = 1 / x
  static constexpr const char* name = "LogBackward0";
  EMBER_SAVED_TENSORS(self);
  Grads apply(const Tensor& g, Needs) const { return {g / self.unpack()}; }
};
struct SqrtBackward0 {  // d sqrt(x) = 1 / (2 sqrt(x))
  static constexpr const char* name = "SqrtBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return {g / (unpack_output(result) * 2)}; }
};
struct PowBackward0 {  // d x^e = e x^(e-1)
  static constexpr const char* name = "PowBackward0";
  EMBER_SAVED_TENSORS(self);
  double exponent = 0;
  Grads apply(const Tensor& g, Needs) const {
    const Tensor x = self.unpack();  // even when exponent 0 does not need it: a freed graph is detected
    if (exponent == 0) return {zeros(x.sizes(), x.options())};  // contiguous, as ATen's
    return {g * x.pow(exponent - 1) * exponent};
  }
};
struct AbsBackward0 {  // sign(x), so 0 at 0 (PyTorch's sgn)
  static constexpr const char* name = "AbsBackward0";
  EMBER_SAVED_TENSORS(self);
  Grads apply(const Tensor& g, Needs) const { return {g * sign(self.unpack())}; }
};
struct SignBackward0 {  // constant almost everywhere
  static constexpr const char* name = "SignBackward0";
  Grads apply(const Tensor& g, Needs) const { return {zeros_like(g)}; }
};
struct ReciprocalBackward0 {  // d (1/x) = -1 / x^2 = -y^2
  static constexpr const char* name = "ReciprocalBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const {
    const Tensor y = unpack_output(result);
    return {-g * (y * y)};  // PyTorch's -grad * (result * result)
  }
};
struct ReluBackward0 {  // 1 where the output is positive
  static constexpr const char* name = "ReluBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return {threshold_backward(g, unpack_output(result), 0)}; }
};
struct SigmoidBackward0 {  // y (1 - y)
  static constexpr const char* name = "SigmoidBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return sigmoid_backward(g, unpack_output(result)); }
};
struct TanhBackward0 {  // 1 - y^2
  static constexpr const char* name = "TanhBackward0";
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return tanh_backward(g, unpack_output(result)); }
};
struct WhereBackward0 {  // inputs: condition, self, other
  static constexpr const char* name = "WhereBackward0";
  EMBER_SAVED_TENSORS(condition);
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor c = condition.unpack(), zero = constant_like(g, 0);
    return {Tensor(), needs[1] ? where(c, g, zero) : Tensor(), needs[2] ? where(c, zero, g) : Tensor()};
  }
};

// ---- bounds: the gradient goes where the value came from ----
struct MaximumBackward0 {  // to the larger input; half to each where they tie; all to both at a NaN
  static constexpr const char* name = "MaximumBackward0";
  EMBER_SAVED_TENSORS(self, other);
  Grads apply(const Tensor& g, Needs needs) const { return to_extreme(g, needs, /*maximum=*/true); }
  Grads to_extreme(const Tensor& g, Needs needs, bool maximum) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved (PyTorch's)
    return maximum_backward(g, a, b, needs, maximum);
  }
};
struct MinimumBackward0 : MaximumBackward0 {  // to the smaller input
  static constexpr const char* name = "MinimumBackward0";
  Grads apply(const Tensor& g, Needs needs) const { return to_extreme(g, needs, /*maximum=*/false); }
};
// clamp: g where the input lies within the bounds (bounds included), 0 outside them and at NaN.
struct ClampBackward1 {  // clamp(self, min, max), either bound optional
  static constexpr const char* name = "ClampBackward1";
  EMBER_SAVED_TENSORS(self);
  std::optional<Scalar> min, max;
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), min, max)}; }
};
struct ClampMinBackward0 {
  static constexpr const char* name = "ClampMinBackward0";
  EMBER_SAVED_TENSORS(self);
  Scalar min = 0;
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), min, std::nullopt)}; }
};
struct ClampMaxBackward0 {
  static constexpr const char* name = "ClampMaxBackward0";
  EMBER_SAVED_TENSORS(self);
  Scalar max = 0;
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), std::nullopt, max)}; }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using PointwiseNodes =
    NodeList<AddBackward0, SubBackward0, RsubBackward1, AddBackward1, SubBackward1, MulBackward1, DivBackward1,
             MulBackward0, DivBackward0, Atan2Backward0, RemainderBackward0, RemainderBackward1, AddcmulBackward0,
             AddcdivBackward0, NegBackward0, ExpBackward0, LogBackward0, SqrtBackward0, PowBackward0, AbsBackward0,
             SignBackward0, ReciprocalBackward0, ReluBackward0, SigmoidBackward0, TanhBackward0, WhereBackward0,
             MaximumBackward0, MinimumBackward0, ClampBackward1, ClampMinBackward0, ClampMaxBackward0>;

}  // namespace ember::autograd
