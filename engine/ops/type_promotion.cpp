// PyTorch's type promotion (see type_promotion.h).
#include "type_promotion.h"

#include <optional>

#include "api/ops.h"

namespace ember::internal {

DType compute_dtype(DType dtype) {
  switch (dtype) {
    case DType::BFloat16:
    case DType::Float16: return kFloat32;
    case DType::Bool:
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32: return kInt64;
    default: return dtype;
  }
}

namespace {
// Category order: bool < integral < floating.
int category(DType d) { return d == kBool ? 0 : is_integral(d, false) ? 1 : 2; }
// ATen's combine_categories: the higher-priority result wins unless the lower one is of a
// higher category, in which case they are promoted together.
DType combine(DType higher, DType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_types(higher, lower);
  return higher;
}
DType wrapped_number_dtype(Scalar s) {
  return s.is_floating_point() ? get_default_dtype() : s.is_integral() ? kInt64 : kBool;
}
}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  const bool a_dims = a.dim() > 0, b_dims = b.dim() > 0;
  if (a_dims == b_dims) return promote_types(a.dtype(), b.dtype());
  const Tensor& dimensioned = a_dims ? a : b;
  const Tensor& zero_dim = a_dims ? b : a;
  if (category(zero_dim.dtype()) > category(dimensioned.dtype())) return combine(dimensioned.dtype(), zero_dim.dtype());
  return dimensioned.dtype();
}

DType result_type(std::initializer_list<std::reference_wrapper<const Tensor>> tensors) {
  // ATen's ResultTypeState: dimensioned tensors promote among themselves, 0-dim ones among
  // themselves, and a 0-dim result lifts a dimensioned one only by its category.
  std::optional<DType> dimensioned, zero_dim;
  for (const Tensor& t : tensors) {
    std::optional<DType>& kind = t.dim() > 0 ? dimensioned : zero_dim;
    kind = kind ? promote_types(*kind, t.dtype()) : t.dtype();
  }
  if (!dimensioned || !zero_dim) return dimensioned ? *dimensioned : *zero_dim;
  return category(*zero_dim) > category(*dimensioned) ? combine(*dimensioned, *zero_dim) : *dimensioned;
}

DType result_type(const Tensor& a, Scalar b) {
  DType number = wrapped_number_dtype(b);
  if (category(number) > category(a.dtype())) return combine(a.dtype(), number);
  return a.dtype();
}

void check_can_cast(DType result, DType out) {
  const bool narrows = (is_floating_point(result) && !is_floating_point(out)) || (result != kBool && out == kBool);
  EMBER_CHECK(!narrows, "result type ", scalar_type_name(result), " can't be cast to the desired output type ",
              scalar_type_name(out));
}

}  // namespace ember::internal

namespace ember {
DType result_type(const Tensor& a, const Tensor& b) { return internal::result_type(a, b); }
DType result_type(const Tensor& a, Scalar b) { return internal::result_type(a, b); }
}  // namespace ember
