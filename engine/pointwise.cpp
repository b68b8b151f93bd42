// Element-wise ops. The path of `a + b`: check devices, pick the result dtype (PyTorch's
// promotion), broadcast the shapes, run the kernel in the compute dtype, cast back for 16-bit
// floats, then record AddBackward0 if an input requires grad. In-place forms (`a += b`) run the
// same kernel into `a` and bump its version counter.
#include "autograd/inplace.h"
#include "autograd/record.h"
#include "internal.h"
#include "kernels/copy.h"
#include "kernels/elementwise.h"
#include "ops.h"
#include "shape_rules.h"

namespace ember {

using autograd::Op;
using kernels::BinaryOp;
using kernels::CompareOp;
using kernels::UnaryOp;

namespace {

DType binary_result_dtype(BinaryOp op, DType promoted) {
  // True division of integers gives the default floating dtype.
  if (op == BinaryOp::Div && !is_floating_point(promoted)) return kFloat32;
  return promoted;
}

void check_bool_subtraction(BinaryOp op, DType a, DType b) {
  EMBER_CHECK(!(op == BinaryOp::Sub && (a == kBool || b == kBool)),
              "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
              "mask, use the `~` or `logical_not()` operator instead.");
}

// Computes a (op) b into a fresh tensor of dtype `result`, without autograd.
Tensor compute_binary(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha, DType result) {
  internal::check_cpu(a, "binary op");
  internal::check_cpu(b, "binary op");
  const Dims shape = a.sizes() == b.sizes() ? a.sizes() : broadcast_shapes(a.sizes(), b.sizes());
  const DType compute = internal::compute_dtype(result);
  Tensor out = internal::new_empty(shape, compute, a.device());
  if (a.dtype() == compute && b.dtype() == compute && a.sizes() == shape && b.sizes() == shape) {
    kernels::binary(op, out, a, b, alpha);  // the common case: nothing to convert or broadcast
    return out;
  }
  kernels::binary(op, out, internal::broadcast_to(internal::converted(a, compute), shape),
                  internal::broadcast_to(internal::converted(b, compute), shape), alpha);
  return internal::converted(out, result);
}

// The node of a binary op with a tensor, or with a number (its formula then has one input).
Op grad_op_of(BinaryOp op, bool with_number) {
  switch (op) {
    case BinaryOp::Add: return with_number ? Op::AddScalar : Op::Add;
    case BinaryOp::Sub: return with_number ? Op::SubScalar : Op::Sub;
    case BinaryOp::Mul: return with_number ? Op::MulScalar : Op::Mul;
    case BinaryOp::Div: return with_number ? Op::DivScalar : Op::Div;
  }
  return Op::Add;
}

void check_alpha(Scalar alpha, DType result) {
  EMBER_CHECK(is_floating_point(result) || !alpha.is_floating_point(),
              "For integral input tensors, argument alpha must not be a floating point number.");
}

// Records a (op) b. Mul and Div formulas read the operands' values: `a_value` is what the left
// operand held (for an in-place op, a copy from before the update), undefined when no formula
// reads it.
std::shared_ptr<autograd::Node> binary_node(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha,
                                            const Tensor& a_value) {
  auto node = autograd::make_node(grad_op_of(op, false), {&a, &b});
  node->args.alpha = alpha;
  if (op == BinaryOp::Mul || op == BinaryOp::Div) {
    node->saved.emplace_back(a_value, false);
    node->saved.emplace_back(b, false);
  }
  return node;
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, Scalar alpha) {
  internal::check_same_device(a, b);
  check_bool_subtraction(op, a.dtype(), b.dtype());
  const DType result = binary_result_dtype(op, internal::result_type(a, b));
  check_alpha(alpha, result);
  Tensor out = compute_binary(op, a, b, alpha, result);
  if (autograd::needs_grad({&a, &b})) autograd::set_history(out, binary_node(op, a, b, alpha, a));
  return out;
}

// `a (op) number`: the number becomes a 0-dim tensor of a's compute dtype ("wrapped number").
Tensor scalar_op(BinaryOp op, const Tensor& a, Scalar b) {
  check_bool_subtraction(op, a.dtype(), b.kind());
  const DType result = binary_result_dtype(op, internal::result_type(a, b));
  Tensor number = internal::scalar(b, internal::compute_dtype(result));
  Tensor out = compute_binary(op, a, number, 1, result);
  if (autograd::needs_grad({&a})) {
    auto node = autograd::make_node(grad_op_of(op, true), {&a});
    node->args.alpha = b;
    autograd::set_history(out, node);
  }
  return out;
}

// An in-place op may not narrow the category of the result (float into an int64 tensor).
void check_can_cast(DType result, DType self) {
  const bool narrows = (is_floating_point(result) && !is_floating_point(self)) || (result != kBool && self == kBool);
  EMBER_CHECK(!narrows, "result type ", scalar_type_name(result), " can't be cast to the desired output type ",
              scalar_type_name(self));
}

// The checks every in-place write into `self` starts with.
void check_writable(const Tensor& self, const Tensor& source) {
  internal::check_cpu(self, "in-place op");
  autograd::check_inplace(self);
  internal::check_no_internal_overlap(self);
  if (source.defined()) internal::check_no_partial_overlap(self, source);
}

// The in-place form: self = self (op) other, computed in self's dtype.
Tensor& inplace_op(BinaryOp op, Tensor& self, const Tensor& other, Scalar alpha) {
  internal::check_same_device(self, other);
  check_writable(self, other);
  const DType result = binary_result_dtype(op, internal::result_type(self, other));
  check_can_cast(result, self.dtype());
  check_alpha(alpha, result);
  const Dims shape = broadcast_shapes(self.sizes(), other.sizes());
  EMBER_CHECK(shape == self.sizes(), "output with shape ", to_string(self.sizes()),
              " doesn't match the broadcast shape ", to_string(shape));
  const bool recording = autograd::needs_grad({&self, &other});
  // other's gradient under Mul/Div needs self's value from before the update: keep a copy.
  Tensor self_before;
  if (recording && (op == BinaryOp::Mul || op == BinaryOp::Div) && other.requires_grad()) {
    self_before = internal::new_empty(self.sizes(), self.dtype());
    kernels::copy(self_before, self);
  }
  if (internal::compute_dtype(self.dtype()) == self.dtype() && self.dtype() == result) {
    kernels::binary(op, self, self, internal::broadcast_to(internal::converted(other, self.dtype()), shape), alpha);
  } else {
    kernels::copy(self, compute_binary(op, self, other, alpha, result));
  }
  std::shared_ptr<autograd::Node> node;
  // Saving self itself would make self's own grad_fn own self: alias it instead (x.mul_(x)).
  if (recording) node = binary_node(op, self, other.is_same(self) ? internal::alias(other) : other, alpha, self_before);
  autograd::finish_inplace(self, node);
  return self;
}

Tensor& inplace_scalar_op(BinaryOp op, Tensor& self, Scalar other) {
  check_writable(self, Tensor());
  check_can_cast(binary_result_dtype(op, internal::result_type(self, other)), self.dtype());
  Tensor number = internal::scalar(other, internal::compute_dtype(self.dtype()));
  if (internal::compute_dtype(self.dtype()) == self.dtype())
    kernels::binary(op, self, self, internal::broadcast_to(number, self.sizes()), 1);
  else
    kernels::copy(self, compute_binary(op, self, number, 1, self.dtype()));
  std::shared_ptr<autograd::Node> node;
  if (autograd::needs_grad({&self})) {
    node = autograd::make_node(grad_op_of(op, true), {&self});
    node->args.alpha = other;
  }
  autograd::finish_inplace(self, node);
  return self;
}

// Unary math: computed in float32/float64 (integers and 16-bit floats are converted first).
Tensor unary_op(UnaryOp op, Op grad_op, const Tensor& a, double exponent = 0, bool keeps_integers = false) {
  internal::check_cpu(a, "unary op");
  DType result = a.dtype();
  if (!is_floating_point(result) && !keeps_integers) result = kFloat32;
  const DType compute = internal::compute_dtype(result);
  Tensor input = internal::contiguous(internal::converted(a, compute));
  Tensor out = internal::new_empty(a.sizes(), compute, a.device());
  kernels::unary(op, out, input, exponent);
  out = internal::converted(out, result);
  if (autograd::needs_grad({&a})) {
    auto node = autograd::make_node(grad_op, {&a});
    node->args.exponent = exponent;
    // exp, sigmoid, tanh, sqrt and relu differentiate through their output; log and pow through the input.
    const bool saves_output = op == UnaryOp::Exp || op == UnaryOp::Sigmoid || op == UnaryOp::Tanh ||
                              op == UnaryOp::Sqrt || op == UnaryOp::Relu;
    if (op != UnaryOp::Neg) node->saved.emplace_back(saves_output ? out : a, saves_output);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor compare_op(CompareOp op, const Tensor& a, const Tensor& b) {
  internal::check_same_device(a, b);
  internal::check_cpu(a, "comparison");
  internal::check_cpu(b, "comparison");
  const DType compute = internal::compute_dtype(internal::result_type(a, b));
  const Dims shape = broadcast_shapes(a.sizes(), b.sizes());
  Tensor out = internal::new_empty(shape, kBool, a.device());
  kernels::compare(op, out, internal::broadcast_to(internal::converted(a, compute), shape),
                   internal::broadcast_to(internal::converted(b, compute), shape));
  return out;
}

Tensor compare_scalar(CompareOp op, const Tensor& a, Scalar b) {
  return compare_op(op, a, internal::scalar(b, internal::result_type(a, b)));
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) { return binary_op(BinaryOp::Add, a, b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) { return binary_op(BinaryOp::Sub, a, b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Mul, a, b, 1); }
Tensor div(const Tensor& a, const Tensor& b) { return binary_op(BinaryOp::Div, a, b, 1); }
Tensor add(const Tensor& a, Scalar b) { return scalar_op(BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, Scalar b) { return scalar_op(BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, Scalar b) { return scalar_op(BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, Scalar b) { return scalar_op(BinaryOp::Div, a, b); }

Tensor rsub(const Tensor& a, Scalar b) {
  const DType result = internal::result_type(a, b);
  Tensor out = compute_binary(BinaryOp::Sub, internal::scalar(b, internal::compute_dtype(result)), a, 1, result);
  if (autograd::needs_grad({&a})) autograd::set_history(out, autograd::make_node(Op::RsubScalar, {&a}));
  return out;
}

Tensor neg(const Tensor& a) {
  EMBER_CHECK(a.dtype() != kBool, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                                  "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary_op(UnaryOp::Neg, Op::Neg, a, 0, true);
}
Tensor exp(const Tensor& a) { return unary_op(UnaryOp::Exp, Op::Exp, a); }
Tensor log(const Tensor& a) { return unary_op(UnaryOp::Log, Op::Log, a); }
Tensor sqrt(const Tensor& a) { return unary_op(UnaryOp::Sqrt, Op::Sqrt, a); }
Tensor relu(const Tensor& a) { return unary_op(UnaryOp::Relu, Op::Relu, a, 0, true); }
Tensor sigmoid(const Tensor& a) { return unary_op(UnaryOp::Sigmoid, Op::Sigmoid, a); }
Tensor tanh(const Tensor& a) { return unary_op(UnaryOp::Tanh, Op::Tanh, a); }
Tensor pow(const Tensor& a, Scalar exponent) {
  // An integer tensor to a non-negative integer power stays integral, as in torch.pow.
  const bool integral = exponent.is_integral() && exponent.to_int() >= 0;
  return unary_op(UnaryOp::Pow, Op::PowScalar, a, exponent.to_double(), integral);
}

Tensor eq(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return compare_op(CompareOp::Ge, a, b); }
Tensor eq(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Eq, a, b); }
Tensor ne(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Ne, a, b); }
Tensor lt(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Lt, a, b); }
Tensor le(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Le, a, b); }
Tensor gt(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Gt, a, b); }
Tensor ge(const Tensor& a, Scalar b) { return compare_scalar(CompareOp::Ge, a, b); }

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(condition.dtype() == kBool, "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              scalar_type_name(condition.dtype()));
  internal::check_same_device(condition, a);
  internal::check_same_device(a, b);
  for (const Tensor* t : {&condition, &a, &b}) internal::check_cpu(*t, "where");
  const DType result = internal::result_type(a, b);
  const Dims shape = broadcast_shapes(condition.sizes(), broadcast_shapes(a.sizes(), b.sizes()));
  Tensor out = internal::new_empty(shape, result, a.device());
  kernels::where(out, internal::broadcast_to(condition, shape),
                 internal::broadcast_to(internal::converted(a, result), shape),
                 internal::broadcast_to(internal::converted(b, result), shape));
  if (autograd::needs_grad({&a, &b})) {
    auto node = autograd::make_node(Op::Where, {&a, &b});
    node->saved.emplace_back(condition, false);
    autograd::set_history(out, node);
  }
  return out;
}

// ---- in-place methods ----
Tensor& Tensor::add_(const Tensor& other, Scalar alpha) { return inplace_op(BinaryOp::Add, *this, other, alpha); }
Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) { return inplace_op(BinaryOp::Sub, *this, other, alpha); }
Tensor& Tensor::mul_(const Tensor& other) { return inplace_op(BinaryOp::Mul, *this, other, 1); }
Tensor& Tensor::div_(const Tensor& other) { return inplace_op(BinaryOp::Div, *this, other, 1); }
Tensor& Tensor::add_(Scalar other) { return inplace_scalar_op(BinaryOp::Add, *this, other); }
Tensor& Tensor::sub_(Scalar other) { return inplace_scalar_op(BinaryOp::Sub, *this, other); }
Tensor& Tensor::mul_(Scalar other) { return inplace_scalar_op(BinaryOp::Mul, *this, other); }
Tensor& Tensor::div_(Scalar other) { return inplace_scalar_op(BinaryOp::Div, *this, other); }

Tensor& Tensor::fill_(Scalar value) {
  check_writable(*this, Tensor());
  kernels::fill(*this, value);
  autograd::finish_inplace(*this, autograd::needs_grad({this}) ? autograd::make_node(Op::Fill, {this}) : nullptr);
  return *this;
}

Tensor& Tensor::zero_() {
  check_writable(*this, Tensor());
  kernels::fill(*this, 0);
  autograd::finish_inplace(*this, autograd::needs_grad({this}) ? autograd::make_node(Op::Zero, {this}) : nullptr);
  return *this;
}

Tensor& Tensor::copy_(const Tensor& src) {
  if (src.device() == device()) check_writable(*this, src);
  else autograd::check_inplace(*this);
  const Dims shape = broadcast_shapes(sizes(), src.sizes());
  EMBER_CHECK(shape == sizes(), "output with shape ", to_string(sizes()), " doesn't match the broadcast shape ",
              to_string(shape));
  Tensor source = src.device() == device() ? src : internal::alias(src).to(device());
  internal::check_cpu(*this, "copy_");
  kernels::copy(*this, internal::broadcast_to(source, sizes()));
  std::shared_ptr<autograd::Node> node;
  if (autograd::needs_grad({this, &src})) {
    node = autograd::make_node(Op::Copy, {this, &src});
  }
  autograd::finish_inplace(*this, node);
  return *this;
}

}  // namespace ember
