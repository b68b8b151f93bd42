// float32 log, sin and cos exactly as PyTorch's AVX2 randn computes them (one lane of
// aten/src/ATen/native/cpu/avx_mathfun.h). Bit-exact randn needs these, not libm's functions.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ember::kernels {

// PyTorch's vectorised float normal does not call libm: it uses the Cephes-style approximations
// of aten/src/ATen/native/cpu/avx_mathfun.h, eight lanes at a time. These are the same steps for
// one lane. Their constants are double literals rounded to float, as avx_mathfun.h stores them.

constexpr float as_float(double value) { return static_cast<float>(value); }

// log(x) for x in (0, 1]: split x into 2^e * m with m in [0.5, 1), shift m to about [-0.29, 0.41]
// around 1, evaluate a degree-9 polynomial, and add e * log(2) in two parts for accuracy.
// (Written without branches, like the vector code, so that the compiler can vectorise it again.)
inline float approximate_log(float x) {
  // x = max(x, smallest normal float): no denormals. For positive floats the bit patterns
  // order like the values, so an integer max does it.
  const uint32_t bits = std::max(std::bit_cast<uint32_t>(x), 0x00800000u);
  const int32_t biased_exponent = static_cast<int32_t>(bits >> 23);
  x = std::bit_cast<float>((bits & ~0x7f800000u) | std::bit_cast<uint32_t>(0.5f));  // mantissa in [0.5, 1)
  float exponent = static_cast<float>(biased_exponent - 127) + 1.0f;
  // Below sqrt(1/2) use 2m - 1 and one exponent less, else m - 1.
  const bool small = x < as_float(0.707106781186547524);
  const float mantissa_if_small = small ? x : 0.0f;
  x = x - 1.0f;
  exponent = exponent - (small ? 1.0f : 0.0f);
  x = x + mantissa_if_small;
  const float x_squared = x * x;
  float y = as_float(7.0376836292E-2);  // the polynomial, by Horner's rule
  y = std::fma(y, x, as_float(-1.1514610310E-1));
  y = std::fma(y, x, as_float(1.1676998740E-1));
  y = std::fma(y, x, as_float(-1.2420140846E-1));
  y = std::fma(y, x, as_float(1.4249322787E-1));
  y = std::fma(y, x, as_float(-1.6668057665E-1));
  y = std::fma(y, x, as_float(2.0000714765E-1));
  y = std::fma(y, x, as_float(-2.4999993993E-1));
  y = std::fma(y, x, as_float(3.3333331174E-1));
  y = y * x;
  y = std::fma(y, x_squared, exponent * as_float(-2.12194440e-4));
  y = std::fma(-x_squared, 0.5f, y);
  return std::fma(exponent, as_float(0.693359375), x + y);
}

// sin(x) and cos(x) together: reduce x by a multiple j of pi/4 (pi/4 split in three parts for
// accuracy), evaluate the sine and cosine polynomials on the remainder, then pick and sign them
// by the octant j.
inline void approximate_sincos(float x, float& sine, float& cosine) {
  const bool negative_input = std::signbit(x);
  x = std::fabs(x);
  int32_t octant = static_cast<int32_t>(x * as_float(1.27323954473516));  // x * 4/pi, truncated
  octant = (octant + 1) & ~1;
  const float multiple = static_cast<float>(octant);
  x = std::fma(multiple, as_float(-0.78515625), x);
  x = std::fma(multiple, as_float(-2.4187564849853515625e-4), x);
  x = std::fma(multiple, as_float(-3.77489497744594108e-8), x);
  const float x_squared = x * x;

  float cosine_polynomial = std::fma(as_float(2.443315711809948E-005), x_squared, as_float(-1.388731625493765E-003));
  cosine_polynomial = std::fma(cosine_polynomial, x_squared, as_float(4.166664568298827E-002));
  cosine_polynomial = cosine_polynomial * x_squared;
  cosine_polynomial = std::fma(cosine_polynomial, x_squared, -(x_squared * 0.5f));
  cosine_polynomial = cosine_polynomial + 1.0f;

  float sine_polynomial = std::fma(as_float(-1.9515295891E-4), x_squared, as_float(8.3321608736E-3));
  sine_polynomial = std::fma(sine_polynomial, x_squared, as_float(-1.6666654611E-1));
  sine_polynomial = sine_polynomial * x_squared;
  sine_polynomial = std::fma(sine_polynomial, x, x);

  const bool swapped = (octant & 2) != 0;
  sine = swapped ? cosine_polynomial : sine_polynomial;
  cosine = swapped ? sine_polynomial : cosine_polynomial;
  if (negative_input != ((octant & 4) != 0)) sine = -sine;
  if ((~(octant - 2)) & 4) cosine = -cosine;
}

}  // namespace ember::kernels
