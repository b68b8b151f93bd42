// ULP distances for comparing compiled results with eager's and with exact values
// (test_compile.cpp, test_compile_numerics.cpp).
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ember.h"

namespace ulp_distance {

using ember::Tensor;

// The distance in units in the last place between two floats (0 when both are NaN).
inline int64_t ulps(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits < 0 ? int64_t{INT32_MIN} - bits : int64_t{bits};
  };
  return std::llabs(ordered(a) - ordered(b));
}

inline int64_t max_ulps(const Tensor& a, const Tensor& b) {
  REQUIRE(a.sizes() == b.sizes());
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  int64_t worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, ulps(x[i], y[i]));
  return worst;
}

// The largest difference in units of the tensor's scale: ULPs of its largest magnitude, the bound
// for a result that went through a reduction (a sum's rounding is relative to its terms, not to
// a small result).
inline double scaled_error(const Tensor& compiled, const Tensor& eager) {
  const std::vector<float> x = compiled.to_vector<float>(), y = eager.to_vector<float>();
  float scale = 0;
  for (float v : y) scale = std::max(scale, std::fabs(v));
  const float ulp = std::nextafter(scale, INFINITY) - scale;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::fabs(double(x[i]) - y[i]) / ulp);
  return worst;
}

}  // namespace ulp_distance
