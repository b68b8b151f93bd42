// Whole-tensor comparisons: allclose (|a - b| <= atol + rtol * |b|, elementwise, as torch.allclose),
// equal (same sizes and identical values) and is_nonzero (a one-element tensor as a truth value).
#include <cmath>

#include "api/new_tensors.h"
#include "api/ops.h"
#include "shape_rules.h"

namespace ember {

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), scalar_type_name(a.dtype()), " did not match ", scalar_type_name(b.dtype()));
  const Dims shape = broadcast_shapes(a.sizes(), b.sizes());
  const std::vector<double> x = internal::broadcast_to(a, shape).to_vector<double>();
  const std::vector<double> y = internal::broadcast_to(b, shape).to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      if (equal_nan && std::isnan(x[i]) && std::isnan(y[i])) continue;
      return false;
    }
    if (x[i] == y[i]) continue;  // equal infinities
    if (!(std::fabs(x[i] - y[i]) <= atol + rtol * std::fabs(y[i]))) return false;
  }
  return true;
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  return a.to_vector<double>() == b.to_vector<double>();
}

bool is_nonzero(const Tensor& t) {
  EMBER_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
  return t.item<double>() != 0;
}

}  // namespace ember
