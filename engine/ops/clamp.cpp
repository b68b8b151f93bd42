// Keeping values within bounds: torch.maximum and torch.minimum element by element, and clamp,
// clamp_min and clamp_max against numbers. A bound that is a number is maximum/minimum against
// that number as a 0-dim tensor of the result's dtype, bit for bit PyTorch's clamp kernels (which
// compute std::min(std::max(x, min), max): a NaN input stays NaN, min > max gives max). What the
// kernels cannot say is here: a floating tensor keeps its dtype while an integer one is promoted
// by its bounds (clamp(int64, 0.5) is float32), a NaN bound, and PyTorch's refusals.
#include <cmath>
#include <limits>

#include "api/new_tensors.h"
#include "dispatch.h"
#include "elementwise.h"
#include "kernels/backend.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::BinaryOp;

namespace {

// clamp's result dtype (PyTorch's clamp meta function): a floating tensor keeps its own; an integer
// or bool one is promoted with each bound given, as `t + bound` would be.
DType clamp_result(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
  if (a.is_floating_point()) return a.dtype();
  DType result = a.dtype();
  if (min) result = promote_types(result, internal::result_type(a, *min));
  if (max) result = promote_types(result, internal::result_type(a, *max));
  return result;
}

// PyTorch's clamp kernels take no bool (its CUDA ones share the name clamp_scalar_cuda).
void check_not_bool(DType result, Device device, const char* cpu_kernel) {
  EMBER_CHECK(result != kBool, "\"", device.is_cpu() ? cpu_kernel : "clamp_scalar_cuda",
              "\" not implemented for 'Bool'");
}

bool is_nan(Scalar bound) { return std::isnan(bound.to_double()); }

// x raised to `bound` where below it (Maximum) or lowered to it where above it (Minimum); the bound
// is converted to the result's dtype first, refused where it does not fit, as PyTorch's kernels do
// (float16 computes in float32, as PyTorch's CUDA kernel, the one that takes float16).
Tensor bounded(BinaryOp op, const Tensor& x, Scalar bound, DType result) {
  internal::check_fits(bound, result == kFloat16 ? kFloat32 : result);
  return elementwise::compute_binary(op, x, internal::scalar(bound, result, x.device()), 1, result);
}

// a's values in a new tensor of dtype `result`.
Tensor copied(const Tensor& a, DType result) {
  Tensor out = internal::new_empty_like(a, result);
  kernels::on(a.device()).copy(out, a);
  return out;
}

// A NaN bound makes every element NaN (PyTorch fills the result).
Tensor all_nan(const Tensor& a, DType result) {
  Tensor out = internal::new_elementwise_output(a.sizes(), result, a.device(), a);
  internal::fill_new_tensor(out, std::numeric_limits<double>::quiet_NaN());
  return out;
}

struct Maximum : FunctionalOp {
  static constexpr const char* name = "aten::maximum";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Maximum, a, b, 1); }
  static MaximumBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) { return {a, b}; }
};
struct Minimum : FunctionalOp {
  static constexpr const char* name = "aten::minimum";
  static Tensor compute(const Tensor& a, const Tensor& b) { return elementwise::binary(BinaryOp::Minimum, a, b, 1); }
  static MinimumBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) { return {a, b}; }
};

struct Clamp : FunctionalOp {
  static constexpr const char* name = "aten::clamp";
  static Tensor compute(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
    EMBER_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
    const DType result = clamp_result(a, min, max);
    check_not_bool(result, a.device(),
                   min && max ? "clamp_scalar_cpu"
                   : min      ? "clamp_min_cpu"
                              : "clamp_max_scalar_cpu");
    // With both bounds a NaN one fills the result; alone it changes nothing (PyTorch 1.13's
    // kernel: std::max(x, NaN) is x). The gradient is 0 either way (ClampBackward1).
    if (min && max && (is_nan(*min) || is_nan(*max))) return all_nan(a, result);
    if ((min && is_nan(*min)) || (max && is_nan(*max))) return copied(a, result);
    if (!max) return bounded(BinaryOp::Maximum, a, *min, result);
    if (!min) return bounded(BinaryOp::Minimum, a, *max, result);
    return bounded(BinaryOp::Minimum, bounded(BinaryOp::Maximum, a, *min, result), *max, result);
  }
  static ClampBackward1 save(const Tensor&, const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
    return {a, min, max};
  }
};
struct ClampMin : FunctionalOp {
  static constexpr const char* name = "aten::clamp_min";
  static Tensor compute(const Tensor& a, Scalar min) {
    const DType result = clamp_result(a, min, std::nullopt);
    check_not_bool(result, a.device(), "clamp_min_cpu");
    return is_nan(min) ? all_nan(a, result) : bounded(BinaryOp::Maximum, a, min, result);
  }
  static ClampMinBackward0 save(const Tensor&, const Tensor& a, Scalar min) { return {a, min}; }
};
struct ClampMax : FunctionalOp {
  static constexpr const char* name = "aten::clamp_max";
  static Tensor compute(const Tensor& a, Scalar max) {
    const DType result = clamp_result(a, std::nullopt, max);
    check_not_bool(result, a.device(), "clamp_max_scalar_cpu");
    return is_nan(max) ? all_nan(a, result) : bounded(BinaryOp::Minimum, a, max, result);
  }
  static ClampMaxBackward0 save(const Tensor&, const Tensor& a, Scalar max) { return {a, max}; }
};

}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) { return call<Maximum>(a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return call<Minimum>(a, b); }
Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) { return call<Clamp>(a, min, max); }
Tensor clamp_min(const Tensor& a, Scalar min) { return call<ClampMin>(a, min); }
Tensor clamp_max(const Tensor& a, Scalar max) { return call<ClampMax>(a, max); }

}  // namespace ember
