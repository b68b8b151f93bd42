// The vectorised element functions against libm at the edges of their range: every function the
// CPU kernels vectorise (exp, log, sqrt, tanh, sigmoid, pow with its special exponents), over
// subnormals, signed zeros, infinities, NaN and the overflow and underflow thresholds of exp, each
// value at every lane of a vector and in the scalar tail. A NaN must give NaN, an infinity or a
// zero the same (with its sign), and any other result lie within the function's bound in units in
// the last place (ULPs) of libm's. The bounds are what Eigen's packet code is accurate to inside
// the range (measured over millions of inputs; kernels/vectorised_math.h), on AVX2 and AVX-512
// alike; at the edges the kernels are exact. pow's leftover elements are PyTorch's scalar code's,
// exactly. Issue 40 found log clamping subnormal inputs and
// float64 exp(-inf) giving 5.6e-309, neither of which a scalar test sees.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "ember.h"

using namespace ember;

namespace {

// The distance between a and b in representable numbers, or -1 when they differ in kind (a NaN
// against a number, an infinity or a zero against anything else, opposite signs).
template <typename T>
int64_t ulps_between(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : -1;
  if (a == b) return std::signbit(a) == std::signbit(b) ? 0 : -1;
  if (std::isinf(a) || std::isinf(b) || a == 0 || b == 0 || std::signbit(a) != std::signbit(b)) return -1;
  using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  const int64_t distance = static_cast<int64_t>(std::bit_cast<Bits>(a)) - static_cast<int64_t>(std::bit_cast<Bits>(b));
  return distance < 0 ? -distance : distance;
}

// The edges: zeros, subnormals, the normal limits, infinities, NaN, exp's overflow threshold
// log(max), its underflow thresholds log(min) (results turn subnormal) and log(denorm_min)
// (results turn 0), the kernels' own limits for Eigen's exp (-87, 88; -708, 709), each with its
// neighbours, and a few ordinary values (tanh saturates near 9 in float32, 20 in float64).
template <typename T>
std::vector<T> edge_values() {
  using Limits = std::numeric_limits<T>;
  std::vector<T> values = {T(0),
                           Limits::denorm_min(),
                           Limits::min() / 2,
                           std::nextafter(Limits::min(), T(0)),
                           Limits::min(),
                           Limits::max(),
                           Limits::infinity(),
                           T(1),
                           T(0.5),
                           T(2),
                           T(9),
                           T(20),
                           T(1e-8),
                           sizeof(T) == 4 ? T(1e-40) : T(1e-310)};
  const T thresholds[] = {std::log(Limits::max()), std::log(Limits::min()), std::log(Limits::denorm_min()),
                          sizeof(T) == 4 ? T(-87) : T(-708), sizeof(T) == 4 ? T(88) : T(709)};
  for (T threshold : thresholds)
    for (T value :
         {std::nextafter(threshold, -Limits::infinity()), threshold, std::nextafter(threshold, Limits::infinity())})
      values.push_back(value);
  const size_t positive = values.size();
  for (size_t i = 0; i < positive; ++i) values.push_back(-values[i]);
  values.push_back(Limits::quiet_NaN());
  return values;
}

struct Function {
  std::function<Tensor(const Tensor&)> vectorised;
  std::function<double(double, bool)> libm;  // x, whether float32 (then libm's float function)
  int64_t float32_ulps, float64_ulps;
  // Where set, what PyTorch's scalar code computes for the elements its vectorised loop leaves
  // over (the last length % 16 floats, 8 doubles), which must be these bits exactly.
  std::function<double(double, bool)> scalar_tail = nullptr;
};

template <typename T>
T libm_of(const Function& f, T x) {
  return static_cast<T>(f.libm(static_cast<double>(x), sizeof(T) == 4));
}

// Every edge value at every position of tensors of vector and tail lengths, against libm; returns
// the first disagreement beyond the bound, or "".
template <typename T>
std::string disagreement(const Function& f) {
  const std::vector<T> edges = edge_values<T>();
  const int64_t bound = sizeof(T) == 4 ? f.float32_ulps : f.float64_ulps;
  for (int64_t length : {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 1000})
    for (size_t offset = 0; offset < 4; ++offset) {
      std::vector<T> x(length);
      for (int64_t i = 0; i < length; ++i) x[i] = edges[(i + offset) % edges.size()];
      const std::vector<T> y = f.vectorised(from_vector(x, {length})).template to_vector<T>();
      for (int64_t i = 0; i < length; ++i) {
        const bool in_tail = f.scalar_tail && i >= length - length % static_cast<int64_t>(64 / sizeof(T));
        const T expected =
            in_tail ? static_cast<T>(f.scalar_tail(static_cast<double>(x[i]), sizeof(T) == 4)) : libm_of(f, x[i]);
        const int64_t ulps = ulps_between(y[i], expected);
        if (ulps >= 0 && ulps <= (in_tail ? 0 : bound)) continue;
        std::ostringstream why;
        why.precision(17);
        why << (sizeof(T) == 4 ? "float32" : "float64") << " x = " << x[i] << " at " << i << " of " << length << ": "
            << y[i] << ", libm " << expected << " (" << ulps << " ULPs, bound " << bound << ")";
        return why.str();
      }
    }
  return "";
}

void check_against_libm(const Function& f) {
  CHECK(disagreement<float>(f) == "");
  CHECK(disagreement<double>(f) == "");
}

double exp_of(double x, bool single) { return single ? std::exp(static_cast<float>(x)) : std::exp(x); }

}  // namespace

TEST_CASE("the vectorised exp agrees with libm at the edges: 5 ULPs for float32, 2 for float64", "[vectorised_math]") {
  check_against_libm({[](const Tensor& t) { return exp(t); }, exp_of, 5, 2});
}

TEST_CASE("the vectorised log agrees with libm at the edges within 1 ULP", "[vectorised_math]") {
  check_against_libm({[](const Tensor& t) { return log(t); },
                      [](double x, bool single) { return single ? std::log(static_cast<float>(x)) : std::log(x); }, 1,
                      1});
}

TEST_CASE("the vectorised sqrt is libm's at the edges, correctly rounded", "[vectorised_math]") {
  check_against_libm({[](const Tensor& t) { return sqrt(t); },
                      [](double x, bool single) { return single ? std::sqrt(static_cast<float>(x)) : std::sqrt(x); }, 0,
                      0});
}

TEST_CASE("the vectorised tanh agrees with libm at the edges: 5 ULPs for float32, exact for float64",
          "[vectorised_math]") {
  check_against_libm({[](const Tensor& t) { return tanh(t); },
                      [](double x, bool single) { return single ? std::tanh(static_cast<float>(x)) : std::tanh(x); }, 5,
                      0});
}

TEST_CASE("the vectorised sigmoid agrees with 1 / (1 + exp(-x)) by libm: 6 ULPs for float32, 4 for float64",
          "[vectorised_math]") {
  // PyTorch's formula, in the input's precision: float32 overflows exp(-x) and gives 0 below -88.7.
  check_against_libm({[](const Tensor& t) { return sigmoid(t); },
                      [](double x, bool single) {
                        if (single) return static_cast<double>(1.0f / (1.0f + std::exp(-static_cast<float>(x))));
                        return 1.0 / (1.0 + std::exp(-x));
                      },
                      6, 4});
}

TEST_CASE("the vectorised pow agrees with libm at the edges: exact for ATen's special exponents, else 1 or 2 ULPs",
          "[vectorised_math]") {
  // 2, 3, 0.5, -0.5, -1 and -2 are computed as ATen computes them (x * x, x * x * x, sqrt(x),
  // 1 / sqrt(x), 1 / x, 1 / (x * x)); any other exponent by Sleef's pow over ATen's vectors and
  // libm's over the elements they leave, which PyTorch's scalar code computes in double with the
  // exponent unrounded (for float32 x^(1/3) of the smallest subnormal, 11 ULPs from powf's answer).
  for (double exponent : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 2.5, 1.0 / 3, -1.5, 7.0, -7.0, -3.0, 0.25}) {
    INFO("exponent " << exponent);
    auto special = [exponent](auto x) -> decltype(x) {
      using T = decltype(x);
      if (exponent == 2) return x * x;
      if (exponent == 3) return x * x * x;
      if (exponent == 0.5) return std::sqrt(x);
      if (exponent == -0.5) return T(1) / std::sqrt(x);
      if (exponent == -1) return T(1) / x;
      if (exponent == -2) return T(1) / (x * x);
      return std::pow(x, static_cast<T>(exponent));
    };
    const bool is_special =
        exponent == 2 || exponent == 3 || exponent == 0.5 || exponent == -0.5 || exponent == -1 || exponent == -2;
    check_against_libm({[exponent](const Tensor& t) { return pow(t, exponent); },
                        [special](double x, bool single) {
                          return single ? static_cast<double>(special(static_cast<float>(x))) : special(x);
                        },
                        is_special ? 0 : 1, is_special ? 0 : 2,
                        is_special ? nullptr : std::function<double(double, bool)>([exponent](double x, bool single) {
                          return single ? static_cast<double>(static_cast<float>(std::pow(x, exponent)))
                                        : std::pow(x, exponent);
                        })});
  }
}
