// x^y as PyTorch's vectorised CPU kernel computes it, bit for bit: Sleef's pow with 1-ULP accuracy
// (Sleef_powf8_u10 and Sleef_powd4_u10, the AVX2 functions with fused multiply-adds, Sleef 3.5).
//
// Why: PyTorch 1.13 computes pow(x, e) for every exponent it does not treat specially (all but
// 0, 1, 2, 3, -2, 0.5, -0.5 and -1) with Sleef over whole vectors and with libm's pow over the
// leftover elements; Sleef's answer differs from the correctly rounded one in the last bit for
// about 1 input in 50, so no libm reproduces it. This is Sleef's algorithm written out for one
// element, in its order of operations: log|x| as an unevaluated sum of two numbers (hi + lo,
// Sleef's double-float and double-double arithmetic), times y, then exp of that sum, then the
// signs and special values. Every step is a correctly rounded IEEE operation or a fused
// multiply-add (std::fma), so every machine gives the same bits; the loop that calls it has no
// branches, and the compiler vectorises it (the functions are always inlined, so that it can).
#pragma once
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ember::kernels::sleef {

// A number as the unevaluated sum hi + lo, |lo| below half an ULP of hi.
template <typename T>
struct Pair {
  T hi, lo;
};

// Sums and products of pairs, each as Sleef's dd/df function of the same shape (named after it).
template <typename T>
Pair<T> normalized(Pair<T> t) {  // ddnormalize
  const T s = t.hi + t.lo;
  return {s, (t.hi - s) + t.lo};
}
template <typename T>
Pair<T> scaled(Pair<T> d, T s) {  // ddscale
  return {d.hi * s, d.lo * s};
}
template <typename T>
Pair<T> sum_exact(T x, T y) {  // ddadd2_vd2_vd_vd: Knuth's two-sum
  const T s = x + y, v = s - x;
  return {s, (x - (s - v)) + (y - v)};
}
template <typename T>
Pair<T> sum_exact(Pair<T> x, T y) {  // ddadd2_vd2_vd2_vd
  const T s = x.hi + y, v = s - x.hi;
  return {s, ((x.hi - (s - v)) + (y - v)) + x.lo};
}
template <typename T>
Pair<T> sum_exact(Pair<T> x, Pair<T> y) {  // ddadd2_vd2_vd2_vd2
  const T s = x.hi + y.hi, v = s - x.hi;
  return {s, ((x.hi - (s - v)) + (y.hi - v)) + (x.lo + y.lo)};
}
template <typename T>
Pair<T> sum_larger_first(T x, Pair<T> y) {  // ddadd_vd2_vd_vd2, |x| >= |y|
  const T s = x + y.hi;
  return {s, ((x - s) + y.hi) + y.lo};
}
template <typename T>
Pair<T> sum_larger_first(Pair<T> x, Pair<T> y) {  // ddadd_vd2_vd2_vd2, |x| >= |y|
  const T s = x.hi + y.hi;
  return {s, (((x.hi - s) + y.hi) + x.lo) + y.lo};
}
template <typename T>
Pair<T> product(Pair<T> x, T y) {  // ddmul_vd2_vd2_vd
  const T s = x.hi * y;
  return {s, std::fma(x.lo, y, std::fma(x.hi, y, -s))};
}
template <typename T>
Pair<T> product(Pair<T> x, Pair<T> y) {  // ddmul_vd2_vd2_vd2
  const T s = x.hi * y.hi;
  return {s, std::fma(x.hi, y.lo, std::fma(x.lo, y.hi, std::fma(x.hi, y.hi, -s)))};
}
template <typename T>
Pair<T> square(Pair<T> x) {  // ddsqu_vd2_vd2
  const T s = x.hi * x.hi;
  return {s, std::fma(x.hi + x.hi, x.lo, std::fma(x.hi, x.hi, -s))};
}
template <typename T>
Pair<T> quotient(Pair<T> n, Pair<T> d) {  // dddiv_vd2_vd2_vd2
  const T t = T(1) / d.hi, s = n.hi * t;
  const T u = std::fma(t, n.hi, -s), v = std::fma(-d.lo, t, std::fma(-d.hi, t, T(1)));
  return {s, std::fma(s, v, std::fma(n.lo, t, u))};
}

// The bits of a float or double as the unsigned integer of its size, and back.
template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
template <typename T>
Bits<T> bits_of(T x) {
  return std::bit_cast<Bits<T>>(x);
}
template <typename T>
T from_bits(Bits<T> b) {
  return std::bit_cast<T>(b);
}

// The 32-bit integer _mm256_cvtps_epi32 and _mm256_cvtpd_epi32 give: x rounded to the nearest
// (ties to even), and INT32_MIN for what does not fit.
template <typename T>
int32_t rounded_to_int32(T x) {
  const T r = std::rint(x);  // in the default rounding mode, to nearest even
  const bool fits = (r >= T(-2147483648.0)) & (r < T(2147483648.0));
  return fits ? static_cast<int32_t>(fits ? r : T(0)) : INT32_MIN;
}

// Sleef's constants for float32: ln 2 split in two, its reciprocal, and the polynomials of log and
// exp over their reduced ranges.
inline constexpr float kLn2HighF = 0.693145751953125f, kLn2LowF = 1.428606765330187045e-06f;
inline constexpr float kInvLn2F = 1.442695040888963407359924681001892137426645954152985934135449406931f;

// log|x| as a pair (logkf): x = m * 2^e with m in [0.75, 1.5), log m from atanh((m-1)/(m+1)).
[[gnu::always_inline]] inline Pair<float> log_pair(float d) {
  const bool tiny = d < FLT_MIN;
  d = tiny ? d * 18446744073709551616.0f : d;  // 2^64, so that a subnormal has an exponent field
  int32_t e = static_cast<int32_t>((bits_of(d * (1.0f / 0.75f)) >> 23) & 0xff) - 0x7f;
  const float m = from_bits<float>(bits_of(d) + (static_cast<uint32_t>(-e) << 23));
  e = tiny ? e - 64 : e;
  const Pair<float> x = quotient(sum_exact(-1.0f, m), sum_exact(1.0f, m)), x2 = square(x);
  float t = 0.240320354700088500976562f;
  t = std::fma(t, x2.hi, 0.285112679004669189453125f);
  t = std::fma(t, x2.hi, 0.400007992982864379882812f);
  const Pair<float> c{0.66666662693023681640625f, 3.69183861259614332084311e-09f};
  Pair<float> s = product(Pair<float>{0.69314718246459960938f, -1.904654323148236017e-09f}, static_cast<float>(e));
  s = sum_larger_first(s, scaled(x, 2.0f));
  return sum_larger_first(s, product(product(x2, x), sum_exact(product(x2, t), c)));
}

// x * 2^q for any int32 q (vldexp_vf_vf_vi2): the power is applied in five steps, so that no
// intermediate overflows or underflows before the result does; Sleef's 32-bit integer arithmetic
// wraps, and so does this.
[[gnu::always_inline]] inline float times_power_of_two(float x, int32_t q) {
  const auto wrapping_sum = [](int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  };
  int32_t m = q >> 31;
  m = ((wrapping_sum(m, q) >> 6) - m) * 16;
  q = wrapping_sum(q, -4 * m);
  m = m + 0x7f;
  m = m > 0 ? m : 0;
  m = m > 0xff ? 0xff : m;
  const float u = from_bits<float>(static_cast<uint32_t>(m) << 23);
  x = x * u * u * u * u;
  return x * from_bits<float>(static_cast<uint32_t>(wrapping_sum(q, 0x7f)) << 23);
}

// exp(d.hi + d.lo) (expkf): d = q ln 2 + s with |s| <= ln 2 / 2, exp s by a polynomial.
[[gnu::always_inline]] inline float exp_pair(Pair<float> d) {
  const int32_t q = rounded_to_int32((d.hi + d.lo) * kInvLn2F);
  Pair<float> s = sum_exact(d, static_cast<float>(q) * -kLn2HighF);
  s = normalized(sum_exact(s, static_cast<float>(q) * -kLn2LowF));
  float u = 0.00136324646882712841033936f;
  u = std::fma(u, s.hi, 0.00836596917361021041870117f);
  u = std::fma(u, s.hi, 0.0416710823774337768554688f);
  u = std::fma(u, s.hi, 0.166665524244308471679688f);
  u = std::fma(u, s.hi, 0.499999850988388061523438f);
  const Pair<float> t = sum_larger_first(1.0f, sum_larger_first(s, product(square(s), u)));
  const float result = times_power_of_two(t.hi + t.lo, q);
  return d.hi < -104 ? 0.0f : result;
}

// Sleef's constants for float64 (the same roles as float32's).
inline constexpr double kLn2High = .69314718055966295651160180568695068359375;
inline constexpr double kLn2Low = .28235290563031577122588448175013436025525412068e-12;
inline constexpr double kInvLn2 = 1.442695040888963407359924681001892137426645954152985934135449406931;

// Estrin's scheme in Sleef's grouping (estrin.h): c[0] is the highest coefficient.
inline double polynomial4(double x, double x2, const double* c) {
  return std::fma(x2, std::fma(x, c[0], c[1]), std::fma(x, c[2], c[3]));
}
inline double polynomial8(double x, double x2, double x4, const double* c) {
  return std::fma(x4, polynomial4(x, x2, c), polynomial4(x, x2, c + 4));
}

// The 32-bit halves of a double, for Sleef's exponent arithmetic, which works on the upper one.
inline double with_high_word(double d, uint32_t high) {
  return from_bits<double>((static_cast<uint64_t>(high) << 32) | (bits_of(d) & 0xffffffffu));
}
inline uint32_t high_word(double d) { return static_cast<uint32_t>(bits_of(d) >> 32); }

// log|x| as a pair (logk).
[[gnu::always_inline]] inline Pair<double> log_pair(double d) {
  const bool tiny = d < DBL_MIN;
  d = tiny ? d * 18446744073709551616.0 : d;  // 2^64
  int32_t e = static_cast<int32_t>((high_word(d * (1.0 / 0.75)) >> 20) & 0x7ff) - 0x3ff;
  const double m = with_high_word(d, high_word(d) + (static_cast<uint32_t>(-e) << 20));
  e = tiny ? e - 64 : e;
  Pair<double> x = quotient(sum_exact(-1.0, m), sum_exact(1.0, m));
  const Pair<double> x2 = square(x);
  const double x4 = x2.hi * x2.hi, x8 = x4 * x4, x16 = x8 * x8;
  static constexpr double kLog[9] = {
      0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
      0.13332981086846273921509,  0.153846227114512262845736, 0.181818180850050775676507,
      0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612};
  const double t = std::fma(x16, kLog[0], polynomial8(x2.hi, x4, x8, kLog + 1));
  const Pair<double> c{0.666666666666666629659233, 3.80554962542412056336616e-17};
  Pair<double> s = product(Pair<double>{0.693147180559945286226764, 2.319046813846299558417771e-17}, double(e));
  s = sum_larger_first(s, scaled(x, 2.0));
  x = product(x2, x);
  s = sum_larger_first(s, product(x, c));
  x = product(x2, x);
  return sum_larger_first(s, product(x, t));
}

// 2^q as a double for an int32 q (vpow2i_vd_vi): q + 1023 put into the exponent field by 32-bit
// shifts, wrapping as Sleef's do.
inline double power_of_two(int32_t q) {
  const uint32_t high = (static_cast<uint32_t>(q) + 0x3ffu) << 20;
  return from_bits<double>(static_cast<uint64_t>(high) << 32);
}

// exp(d.hi + d.lo) (expk).
[[gnu::always_inline]] inline double exp_pair(Pair<double> d) {
  const double dq = std::rint((d.hi + d.lo) * kInvLn2);
  const int32_t q = rounded_to_int32(dq);
  Pair<double> s = sum_exact(d, dq * -kLn2High);
  s = normalized(sum_exact(s, dq * -kLn2Low));
  const double s2 = s.hi * s.hi, s4 = s2 * s2, s8 = s4 * s4;
  static constexpr double kExp[10] = {2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
                                      2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
                                      0.000198412698809069797676111, 0.0013888888939977128960529,
                                      0.00833333333332371417601081,  0.0416666666665409524128449,
                                      0.166666666666666740681535,    0.500000000000000999200722};
  const double u = std::fma(s8, std::fma(s.hi, kExp[0], kExp[1]), polynomial8(s.hi, s2, s4, kExp + 2));
  const Pair<double> t = sum_larger_first(sum_larger_first(1.0, s), product(square(s), u));
  const double result = (t.hi + t.lo) * power_of_two(q >> 1) * power_of_two(q - (q >> 1));
  return d.hi < -1000 ? 0.0 : result;
}

// Whether y is an integer, and an odd one, as Sleef decides for each type.
inline bool is_integer(float y) { return std::trunc(y) == y || std::fabs(y) > 16777216.0f; }
inline bool is_odd_integer(float y) {
  return std::fabs(y) < 16777216.0f && std::trunc(y) == y && (static_cast<int32_t>(y) & 1) == 1;
}
inline bool is_integer(double y) { return std::trunc(y) == y; }
inline bool is_odd_integer(double y) { return std::trunc(y) == y && std::trunc(y * 0.5) != y * 0.5; }

// What x^y needs to know of y, worked out once for a whole tensor: then the loop over x holds no
// condition on y and vectorises.
template <typename T>
struct Exponent {
  T y;
  T negative_base_factor;  // x^y / |x|^y for x < 0: -1 for an odd y, 1 for an even one, else NaN
  Bits<T> odd_sign;        // the sign bit where y is odd: (-0)^y and (-inf)^y keep the sign
  T at_zero, at_infinity;  // |x|^y at x = 0 and x = inf: +0 or +inf
};

template <typename T>
Exponent<T> exponent_of(T y) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  return {y, is_integer(y) ? (is_odd_integer(y) ? T(-1) : T(1)) : std::numeric_limits<T>::quiet_NaN(),
          is_odd_integer(y) ? bits_of(T(-0.0)) : Bits<T>{0}, -y < 0 ? T(0) : kInf, y < 0 ? T(0) : kInf};
}

// Sleef's NaN: every bit set.
template <typename T>
T all_bits_set() {
  return from_bits<T>(static_cast<Bits<T>>(~Bits<T>{0}));
}

// x^y for a finite y other than 0 (xpowf, xpow): exp(y log|x|), its sign from an odd integer y,
// then the special values of x.
template <typename T>
[[gnu::always_inline]] inline T pow(T x, const Exponent<T>& e) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  const Pair<T> d = product(log_pair(std::fabs(x)), e.y);
  T result = exp_pair(d);
  if constexpr (std::is_same_v<T, float>) result = result != result ? kInf : result;  // NaN: overflowed
  else result = d.hi > 709.78271114955742909217217426 ? kInf : result;
  result *= x > 0 ? T(1) : e.negative_base_factor;
  const T at_edge = from_bits<T>(bits_of(x == 0 ? e.at_zero : e.at_infinity) | (bits_of(x) & e.odd_sign));
  result = (std::fabs(x) == kInf) | (x == 0) ? at_edge : result;
  result = x != x ? all_bits_set<T>() : result;
  return x == 1 ? T(1) : result;
}

// x^y for any y, Sleef's cases of y in its order: 1 for y = 0, NaN for a NaN y (but 1^y is 1),
// and for an infinite y 0, 1 or inf as |x| is below, at or above 1, unless x is 0 or inf.
template <typename T>
T pow(T x, T y) {
  const Exponent<T> e = exponent_of(y);
  if (std::isfinite(y) && y != 0) return pow(x, e);
  if (y != y) return x == 1 ? T(1) : all_bits_set<T>();
  if (y == 0) return T(1);
  const T efx = std::copysign(T(1), y) * (std::fabs(x) - 1);  // |x| - 1, its sign flipped for y = -inf
  T result = efx < 0 ? T(0) : efx == 0 ? T(1) : std::numeric_limits<T>::infinity();
  result = std::isinf(x) || x == 0 ? (x == 0 ? e.at_zero : e.at_infinity) : result;
  result = x != x ? all_bits_set<T>() : result;
  return x == 1 ? T(1) : result;
}

}  // namespace ember::kernels::sleef
