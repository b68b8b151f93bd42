// The bound of a matrix product's error (product_rounding.h).
#include "product_rounding.h"

#include <cmath>
#include <sstream>

using namespace ember;

namespace product_rounding {

namespace {

// Half a unit in the last place of `magnitude` in `dtype` (its subnormals' spacing at least).
double half_ulp(double magnitude, DType dtype) {
  const int mantissa_bits = dtype == kBFloat16 ? 7 : dtype == kFloat16 ? 10 : dtype == kFloat32 ? 23 : 52;
  const int min_exponent = dtype == kFloat16 ? -14 : dtype == kFloat64 ? -1022 : -126;
  const int exponent = magnitude > 0 ? std::max(std::ilogb(magnitude), min_exponent) : min_exponent;
  return std::ldexp(0.5, exponent - mantissa_bits);
}

}  // namespace

std::string within_promise(const Tensor& product, const Tensor& a, const Tensor& b, Promise promise) {
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  if (product.dim() != 2 || product.size(0) != M || product.size(1) != N || b.size(0) != K)
    return "shapes " + to_string(product.sizes()) + " = " + to_string(a.sizes()) + " @ " + to_string(b.sizes());
  const std::vector<double> got = product.to_vector<double>(), x = a.to_vector<double>(), y = b.to_vector<double>();
  // Rounding both operands multiplies each term by at most (1 + r)^2.
  const double per_term = 2 * promise.operand_rounding + promise.operand_rounding * promise.operand_rounding;
  const double accumulation = static_cast<double>(K) * promise.accumulation_unit;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double exact = 0, magnitudes = 0;
      for (int64_t k = 0; k < K; ++k) {
        exact += x[i * K + k] * y[k * N + j];
        magnitudes += std::fabs(x[i * K + k] * y[k * N + j]);
      }
      const double before_rounding = (per_term + accumulation * (1 + per_term)) * magnitudes;
      const double bound = before_rounding + half_ulp(std::fabs(exact) + before_rounding, product.dtype());
      const double value = got[i * N + j], error = std::fabs(value - exact);
      if (error <= bound) continue;  // false for NaN too
      std::ostringstream why;
      why.precision(9);
      why << "element [" << i << ", " << j << "]: " << value << " is " << error << " from the exact " << exact
          << ", beyond the promised " << bound;
      return why.str();
    }
  return "";
}

}  // namespace product_rounding
