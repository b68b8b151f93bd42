// Element-wise ops. The path of `a + b`: call<Add> (dispatch.h) runs Add::compute, which checks
// devices, picks the result dtype (PyTorch's promotion), broadcasts the shapes and runs the
// kernel in the compute dtype (16-bit floats compute in float32 and round once); the dispatcher
// then records AddBackward0 if an input requires grad. In-place forms (`a += b`) run the same
// kernel into `a`, and the dispatcher bumps its version counter.
#include <string_view>
#include "api/new_tensors.h"

#include "device_checks.h"
#include "dispatch.h"
#include "elementwise.h"
#include "kernels/backend.h"
#include "profiler/steps.h"
#include "shape_rules.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::BinaryOp;
using kernels::CompareOp;
using kernels::UnaryOp;

namespace {

// What an in-place mul_/div_ saves, before it writes (saved_tensor.h, Note [Saving only what a
// gradient reads]):
// other's gradient needs self's old value (a copy, only when other requires grad); self's gradient
// needs other (mul_ only when self requires grad; div_'s other gradient reads it too). Saving other
// itself when it is self would make self's own grad_fn own self (x.mul_(x)), so it is saved as this
// node's output 0, which is what self becomes (Note [Saving an output]); the write then makes its
// version error name the node.
template <typename Backward>
Backward save_inplace_product(const Tensor& self, const Tensor& other, bool other_read_by_its_own_gradient) {
  Tensor self_before;
  // A recorded clone (CloneBackward0), as PyTorch's original_self: under create_graph, other's
  // gradient must see that it depends on self's old value.
  if (other.requires_grad()) self_before = self.clone();
  if (!self.requires_grad() && !other_read_by_its_own_gradient) return {autograd::SavedTensor(self_before), {}};
  return {autograd::SavedTensor(self_before),
          other.is_same(self) ? autograd::SavedTensor::output(other, 0) : autograd::SavedTensor(other)};
}

// ---- the op structs (dispatch.h) ----
struct Add : FunctionalOp {
  static constexpr const char* name = "aten::add";
  static Tensor compute(const Tensor& a, const Tensor& b, Scalar alpha) {
    return elementwise::binary(BinaryOp::Add, a, b, alpha);
  }
  static AddBackward0 save(const Tensor&, const Tensor&, const Tensor&, Scalar alpha) { return {alpha}; }
};
struct Sub : FunctionalOp {
  static constexpr const char* name = "aten::sub";
  static Tensor compute(const Tensor& a, const Tensor& b, Scalar alpha) {
    return elementwise::binary(BinaryOp::Sub, a, b, alpha);
  }
  static SubBackward0 save(const Tensor&, const Tensor&, const Tensor&, Scalar alpha) { return {alpha}; }
};
struct Mul : FunctionalOp {
  static constexpr const char* name = "aten::mul";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Mul, a, b, 1); }
  static MulBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) {
    return {saved_if(b.requires_grad(), a), saved_if(a.requires_grad(), b)};
  }
};
struct Div : FunctionalOp {
  static constexpr const char* name = "aten::div";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Div, a, b, 1); }
  static DivBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) {
    return {saved_if(b.requires_grad(), a), b};  // both gradients read b
  }
};
struct Atan2 : FunctionalOp {
  static constexpr const char* name = "aten::atan2";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Atan2, a, b, 1); }
  static Atan2Backward0 save(const Tensor&, const Tensor& a, const Tensor& b) { return {a, b}; }
};
struct FloorDivide : FunctionalOp {
  static constexpr const char* name = "aten::floor_divide";
  static Tensor compute(const Tensor& a, const Tensor& b) {
    return elementwise::binary(BinaryOp::FloorDivide, a, b, 1);
  }
  static NotImplemented save(const Tensor&, const Tensor&, const Tensor&) { return {"aten::floor_divide"}; }
};
struct Remainder : FunctionalOp {
  static constexpr const char* name = "aten::remainder";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Remainder, a, b, 1); }
  static RemainderBackward1 save(const Tensor&, const Tensor& a, const Tensor& b) { return {a, b}; }
};
// A unary op of core/op_list.h whose struct is the plain one: aten::<name> runs its element formula
// and records <Name>Backward0, saving what the node names (its formula reads the input or the output:
// exp, sqrt, sigmoid and tanh differentiate through their output, log through its input).
template <UnaryOp formula, typename Backward, bool floating_result>
struct PlainUnary : FunctionalOp {
  static Tensor compute(const Tensor& a) {
    return elementwise::unary(formula, a, floating_result ? elementwise::floating_result(a) : a.dtype());
  }
  static Backward save(const Tensor& result, const Tensor& self) {
    if constexpr (!requires { Backward::saved_names; }) return {};
    else if constexpr (std::string_view(Backward::saved_names) == "result") return {SavedTensor::output(result)};
    else {
      static_assert(std::string_view(Backward::saved_names) == "self", "a plain unary op saves `self` or `result`");
      return {self};
    }
  }
};
#define EMBER_PLAIN_UNARY(name_, Name, floating_result, policy)               \
  struct Name : PlainUnary<UnaryOp::Name, Name##Backward0, floating_result> { \
    static constexpr const char* name = "aten::" #name_;                      \
    static constexpr CastPolicy cast_policy = CastPolicy::policy;             \
  };
#define EMBER_UNARY_STRUCT_FloatingResult(name, Name, policy) EMBER_PLAIN_UNARY(name, Name, true, policy)
#define EMBER_UNARY_STRUCT_InputDType(name, Name, policy) EMBER_PLAIN_UNARY(name, Name, false, policy)
#define EMBER_UNARY_STRUCT_OwnStruct(name, Name, policy)  // written out below
#define EMBER_UNARY_STRUCT(name, Name, result, policy) EMBER_UNARY_STRUCT_##result(name, Name, policy)
EMBER_UNARY_OPS(EMBER_UNARY_STRUCT)

struct Neg : FunctionalOp {
  static constexpr const char* name = "aten::neg";
  static Tensor compute(const Tensor& a) {
    EMBER_CHECK(a.dtype() != kBool, "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                                    "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    return elementwise::unary(UnaryOp::Neg, a, a.dtype());
  }
  static NegBackward0 save(const Tensor&, const Tensor&) { return {}; }
};
// PyTorch 1.13's CPU relu is clamp_min(self, 0); ember's relu kernel computes exactly that (x below 0
// raised to 0, NaN kept), so its work is recorded as the aten::clamp_min step (profiler/steps.h) and
// relu's own event holds only the dispatch, as PyTorch's does.
struct Relu : FunctionalOp {
  static constexpr const char* name = "aten::relu";
  static constexpr bool work_in_steps = true;
  static Tensor compute(const Tensor& a) {
    EMBER_CHECK(a.dtype() != kBool, "Boolean inputs not supported for relu");
    profiler::OpEvent<profiler::steps::ClampMin> clamp_min(a, Scalar(0));
    return elementwise::unary(UnaryOp::Relu, a, a.dtype());
  }
  static ReluBackward0 save(const Tensor& result, const Tensor&) { return {SavedTensor::output(result)}; }
};
struct Abs : FunctionalOp {
  static constexpr const char* name = "aten::abs";
  static Tensor compute(const Tensor& a) {
    EMBER_CHECK(a.dtype() != kBool, "\"abs_", a.device().is_cpu() ? "cpu" : "cuda", "\" not implemented for 'Bool'");
    return elementwise::unary(UnaryOp::Abs, a, a.dtype());
  }
  static AbsBackward0 save(const Tensor&, const Tensor& a) { return {a}; }
};

// The exponent ATen's kernel computes with: a 16-bit float tensor's is rounded to its dtype
// (pow_tensor_scalar_optimized_kernel<scalar_t, scalar_t>), so x^(1/3) of a bfloat16 x is
// x^0.333984375; others are used as given.
double kernel_exponent(DType result, Scalar exponent) {
  const double e = exponent.to_double();
  if (result == kBFloat16) return static_cast<float>(BFloat16(static_cast<float>(e)));
  if (result == kFloat16) return static_cast<float>(Float16(static_cast<float>(e)));
  return e;
}

struct Pow : FunctionalOp {
  static constexpr const char* name = "aten::pow";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;  // not on PyTorch's CPU list
  static Tensor compute(const Tensor& a, Scalar exponent) {
    EMBER_CHECK(a.is_floating_point() || exponent.is_floating_point() || exponent.to_int() >= 0,
                "Integers to negative integer powers are not allowed.");
    // Promoted as `a op number`: an integer (or bool) tensor to an integer power is int64.
    const DType result = internal::result_type(a, exponent);
    return elementwise::unary(UnaryOp::Pow, a, result, kernel_exponent(result, exponent));
  }
  static PowBackward0 save(const Tensor&, const Tensor& a, Scalar exponent) { return {a, exponent.to_double()}; }
  // ATen fills the result for exponent 0, copies the base for 1 (record.h's Note [Kernel writes ...]).
  static int kernel_writes(const Tensor&, Scalar e) { return e.to_double() == 0 || e.to_double() == 1; }
};

// Comparisons have no derivative: their bool results never require grad.
template <CompareOp op>
struct Compare : FunctionalOp {
  static constexpr const char* name = op == CompareOp::Eq   ? "aten::eq"
                                      : op == CompareOp::Ne ? "aten::ne"
                                      : op == CompareOp::Lt ? "aten::lt"
                                      : op == CompareOp::Le ? "aten::le"
                                      : op == CompareOp::Gt ? "aten::gt"
                                                            : "aten::ge";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::compare(op, a, b); }
  static Tensor compute(const Tensor& a, Scalar b) {
    return elementwise::compare(op, a, internal::scalar(b, internal::result_type(a, b), a.device()));
  }
};

struct Where : FunctionalOp {
  static constexpr const char* name = "aten::where";
  static Tensor compute(const Tensor& condition, const Tensor& a, const Tensor& b) {
    EMBER_CHECK(condition.dtype() == kBool,
                "where expected condition to be a boolean tensor, but got a tensor with "
                "dtype ",
                scalar_type_name(condition.dtype()));
    const Device device = internal::common_device({condition, a, b});
    if (condition.device() != device || a.device() != device || b.device() != device) [[unlikely]]  // by value
      return compute(internal::on_device(condition, device), internal::on_device(a, device),
                     internal::on_device(b, device));
    const DType result = internal::result_type(a, b);
    const Dims shape = broadcast_shapes(broadcast_shapes(condition.sizes(), a.sizes()), b.sizes());  // PyTorch's order
    Tensor out = internal::new_elementwise_output(shape, result, device, condition, a, b);
    kernels::on(device).where(out, internal::broadcast_to(condition, shape),
                              internal::broadcast_to(internal::converted(a, result), shape),
                              internal::broadcast_to(internal::converted(b, result), shape));
    return out;
  }
  static WhereBackward0 save(const Tensor&, const Tensor& condition, const Tensor&, const Tensor&) {
    return {condition};
  }
};

// relu's gradient (ReluBackward0's formula): 0 where self <= threshold, grad_output elsewhere,
// as ATen writes it (so a NaN input passes its gradient through, as PyTorch's does).
struct ThresholdBackward : FunctionalOp {
  static constexpr const char* name = "aten::threshold_backward";
  static Tensor compute(const Tensor& grad_output, const Tensor& self, Scalar threshold) {
    // ReluBackward0's case (same sizes, same floating dtype) in one pass, by the fused kernel;
    // anything to broadcast or convert goes through compare and where.
    const DType dtype = grad_output.dtype();
    if (self.device() == grad_output.device() && self.dtype() == dtype && (dtype == kFloat32 || dtype == kFloat64) &&
        self.sizes() == grad_output.sizes()) {
      Tensor out = internal::new_elementwise_output(self.sizes(), dtype, self.device(), self, grad_output);
      kernels::on(out.device()).threshold_backward(out, grad_output, self, threshold);
      return out;
    }
    const Tensor at_or_below = Compare<CompareOp::Le>::compute(self, threshold);
    return Where::compute(at_or_below, internal::scalar(0, grad_output.dtype(), grad_output.device()), grad_output);
  }
  // Recorded only under create_graph, when relu's gradient is itself differentiated.
  static ThresholdBackwardBackward0 save(const Tensor&, const Tensor&, const Tensor& self, Scalar threshold) {
    return {self, threshold};
  }
};

// ---- in place ----
struct AddInPlace : InPlaceOp {
  static constexpr const char* name = "aten::add_";
  static void compute(const Tensor& self, const Tensor& other, Scalar alpha) {
    elementwise::binary_in_place(BinaryOp::Add, self, other, alpha);
  }
  static AddBackward0 save(const Tensor&, const Tensor&, Scalar alpha) { return {alpha}; }
};
struct SubInPlace : InPlaceOp {
  static constexpr const char* name = "aten::sub_";
  static void compute(const Tensor& self, const Tensor& other, Scalar alpha) {
    elementwise::binary_in_place(BinaryOp::Sub, self, other, alpha);
  }
  static SubBackward0 save(const Tensor&, const Tensor&, Scalar alpha) { return {alpha}; }
};
struct MulInPlace : InPlaceOp {
  static constexpr const char* name = "aten::mul_";
  static void compute(const Tensor& self, const Tensor& other) {
    elementwise::binary_in_place(BinaryOp::Mul, self, other, 1);
  }
  static MulBackward0 save(const Tensor& self, const Tensor& other) {
    return save_inplace_product<MulBackward0>(self, other, /*other_read_by_its_own_gradient=*/false);
  }
};
struct DivInPlace : InPlaceOp {
  static constexpr const char* name = "aten::div_";
  static void compute(const Tensor& self, const Tensor& other) {
    elementwise::binary_in_place(BinaryOp::Div, self, other, 1);
  }
  static DivBackward0 save(const Tensor& self, const Tensor& other) {
    return save_inplace_product<DivBackward0>(self, other, /*other_read_by_its_own_gradient=*/true);
  }
};
struct Fill : InPlaceOp {  // allowed on an expanded tensor, as in PyTorch (every copy gets the same value)
  static constexpr const char* name = "aten::fill_";
  static void compute(const Tensor& self, Scalar value) {
    internal::check_fits(value, self.dtype());
    kernels::on(self.device()).fill(self, value);
  }
  static FillBackward2 save(const Tensor&, Scalar) { return {}; }
};
struct Zero : InPlaceOp {
  static constexpr const char* name = "aten::zero_";
  static void compute(const Tensor& self) { Fill::compute(self, 0); }
  static ZeroBackward0 save(const Tensor&) { return {}; }
};

}  // namespace

Tensor add(const Tensor& a, const Tensor& b, Scalar alpha) { return call<Add>(a, b, alpha); }
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha) { return call<Sub>(a, b, alpha); }
Tensor mul(const Tensor& a, const Tensor& b) { return call<Mul>(a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return call<Div>(a, b); }
Tensor atan2(const Tensor& self, const Tensor& other) { return call<Atan2>(self, other); }
Tensor floor_divide(const Tensor& self, const Tensor& other) { return call<FloorDivide>(self, other); }
Tensor remainder(const Tensor& self, const Tensor& other) { return call<Remainder>(self, other); }

#define EMBER_UNARY_FUNCTION(name, Name, ...) \
  Tensor name(const Tensor& self) { return call<Name>(self); }
EMBER_UNARY_OPS(EMBER_UNARY_FUNCTION)
Tensor pow(const Tensor& a, Scalar exponent) { return call<Pow>(a, exponent); }

Tensor eq(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Eq>>(a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Ne>>(a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Lt>>(a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Le>>(a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Gt>>(a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return call<Compare<CompareOp::Ge>>(a, b); }
Tensor eq(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Eq>>(a, b); }
Tensor ne(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Ne>>(a, b); }
Tensor lt(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Lt>>(a, b); }
Tensor le(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Le>>(a, b); }
Tensor gt(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Gt>>(a, b); }
Tensor ge(const Tensor& a, Scalar b) { return call<Compare<CompareOp::Ge>>(a, b); }

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) { return call<Where>(condition, a, b); }
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold) {
  return call<ThresholdBackward>(grad_output, self, threshold);
}

// ---- in-place methods ----
Tensor& Tensor::add_(const Tensor& other, Scalar alpha) {
  call<AddInPlace>(*this, other, alpha);
  return *this;
}
Tensor& Tensor::sub_(const Tensor& other, Scalar alpha) {
  call<SubInPlace>(*this, other, alpha);
  return *this;
}
Tensor& Tensor::mul_(const Tensor& other) {
  call<MulInPlace>(*this, other);
  return *this;
}
Tensor& Tensor::div_(const Tensor& other) {
  call<DivInPlace>(*this, other);
  return *this;
}
void internal::fill_new_tensor(const Tensor& fresh, Scalar value) { call_on_new_tensor<Fill>(fresh, value); }
void internal::zero_new_tensor(const Tensor& fresh) { call_on_new_tensor<Zero>(fresh); }

Tensor& Tensor::fill_(Scalar value) {
  call<Fill>(*this, value);
  return *this;
}
Tensor& Tensor::zero_() {
  call<Zero>(*this);
  return *this;
}

}  // namespace ember
