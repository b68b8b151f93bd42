// The arithmetic of one element, one definition for the CPU kernels and the CUDA kernels (nvcc
// compiles it for the device too, as convert.h): integer arithmetic that wraps around as
// PyTorch's does, the fused multiply-add PyTorch's kernels round with, maximum and minimum,
// addcmul and addcdiv, and the formula of each unary op. The CPU kernel runs its common unary ops
// through Eigen's vectorised array functions instead, and these formulas for the rest; the CUDA
// kernel runs these for every op. Adding a unary op: its name in UnaryOp and its formula here.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "convert.h"  // EMBER_HOST_DEVICE

namespace ember::kernels {

// The C library's math functions, named in this namespace so that the formulas below find them here
// and not ember's ops of the same names (ember::exp(const Tensor&), api/ops.h), which a file batched
// before this header in a unity build may have declared: lookup stops at the first scope that has
// the name. The overloads are the ones the formulas found before.
using ::exp, ::floor, ::fma, ::log, ::pow, ::sqrt, ::tanh;

enum class UnaryOp { Neg, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, Pow, Sign, Abs, Reciprocal };

// Integer arithmetic wraps around on overflow, as in PyTorch (two's complement); written through
// uint64_t because signed overflow is undefined behaviour in C++. Floats are unaffected.
template <typename T>
EMBER_HOST_DEVICE T plus(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
  else return x + y;
}
template <typename T>
EMBER_HOST_DEVICE T minus(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
  else return x - y;
}
template <typename T>
EMBER_HOST_DEVICE T times(T x, T y) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  else return x * y;
}
// x^e by repeated squaring, wrapping on overflow like every int64 product (PyTorch's powi).
EMBER_HOST_DEVICE inline int64_t integer_power(int64_t x, uint64_t e) {
  int64_t result = 1;
  for (; e != 0; e /= 2) {
    if (e & 1) result = times(result, x);
    x = times(x, x);
  }
  return result;
}

// x * y + z rounded once, as PyTorch's CPU kernels compute `a + alpha * b` (add and sub with an
// alpha: Vectorized's fmadd, and the compiler fuses their scalar loops alike) and addcmul's last
// step; so an optimizer's `p.add_(g, -lr)` gives PyTorch's bits. Integers wrap.
template <typename T>
EMBER_HOST_DEVICE T multiply_add(T x, T y, T z) {
  if constexpr (std::is_integral_v<T>) return plus(times(x, y), z);
  else if constexpr (std::is_same_v<T, float>) return fmaf(x, y, z);
  else return fma(x, y, z);
}

// -x, wrapping for integers (sub's alpha: PyTorch subtracts by adding alpha negated).
template <typename T>
EMBER_HOST_DEVICE T negated(T x) {
  if constexpr (std::is_integral_v<T>) return minus(T(0), x);
  else return -x;
}

// torch.maximum and torch.minimum: NaN when either is NaN, else the larger (smaller), the first on
// a tie as std::max in PyTorch's scalar loop (maximum(-0.0, 0.0) is -0.0; its vectorised loop
// returns the second there, so PyTorch's own answer for a signed-zero tie depends on the length).
template <typename T>
EMBER_HOST_DEVICE T maximum(T a, T b) {
  return a < b || b != b ? b : a;
}
template <typename T>
EMBER_HOST_DEVICE T minimum(T a, T b) {
  return b < a || b != b ? b : a;
}

// torch.floor_divide and torch.remainder (Python's // and %): the quotient rounded toward -inf and
// the remainder with the divisor's sign. Integers: the caller has refused a zero divisor
// ("ZeroDivisionError"); x // -1 negates with wrap-around (ATen's int64 INT64_MIN // -1 traps
// instead). Floats: ATen's div_floor_floating and its remainder kernel, to the bit.
template <typename T>
EMBER_HOST_DEVICE T floor_divide(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    if (y == T(-1)) return negated(x);
    const T quotient = x / y;
    return x % y != 0 && (x < 0) != (y < 0) ? T(quotient - 1) : quotient;
  } else {
    if (y == T(0)) return x / y;
    const T mod = std::fmod(x, y);
    T div = (x - mod) / y;
    if (mod != T(0) && (y < T(0)) != (mod < T(0))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), x / y);
    T floored = std::floor(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  }
}
template <typename T>
EMBER_HOST_DEVICE T remainder(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    if (y == T(-1)) return T(0);
    const T mod = x % y;
    return mod != 0 && (mod < 0) != (y < 0) ? T(mod + y) : mod;
  } else {
    T mod = std::fmod(x, y);
    if (mod != T(0) && (y < T(0)) != (mod < T(0))) mod += y;
    return mod;
  }
}

// addcmul and addcdiv of one element, in PyTorch's order and roundings: self + (value * t1) * t2
// with the last multiply and add fused, as its CPU kernel's loops compile; self + (value * t1) / t2.
template <typename T>
EMBER_HOST_DEVICE T addcmul(T self, T t1, T t2, T value) {
  return multiply_add(times(value, t1), t2, self);
}
template <typename T>
EMBER_HOST_DEVICE T addcdiv(T self, T t1, T t2, T value) {
  return self + value * t1 / t2;
}

// op(x) for a float32 or float64 element; `exponent` is Pow's.
template <typename T>
EMBER_HOST_DEVICE T unary_formula(UnaryOp op, T x, double exponent) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Exp: return exp(x);
    case UnaryOp::Log: return log(x);
    case UnaryOp::Sqrt: return sqrt(x);
    case UnaryOp::Relu: return x < T(0) ? T(0) : x;  // keeps NaN, as torch.relu
    case UnaryOp::Sigmoid: return T(1) / (T(1) + exp(-x));
    case UnaryOp::Tanh: return tanh(x);
    // PyTorch's special exponents, each computed as ATen does rather than by pow(), whose edge
    // values differ: x^-0.5 is rsqrt, 1 / sqrt(x) (-inf at -0.0 and NaN at -inf, where pow gives
    // +inf and 0), x^-2 is 1 / (x * x).
    case UnaryOp::Pow:
      if (exponent == 2) return x * x;
      if (exponent == 3) return x * x * x;
      if (exponent == 0.5) return sqrt(x);
      if (exponent == -0.5) return T(1) / sqrt(x);
      if (exponent == -1) return T(1) / x;
      if (exponent == -2) return T(1) / (x * x);
      return pow(x, static_cast<T>(exponent));
    case UnaryOp::Sign: return T((T(0) < x) - (x < T(0)));           // PyTorch's: 0 for NaN, +0 for -0
    case UnaryOp::Abs: return x < T(0) ? -x : x == T(0) ? T(0) : x;  // +0 for -0, NaN stays NaN
    case UnaryOp::Reciprocal: return T(1) / x;                       // one division, as ATen's
  }
  return x;
}

// Whether op takes int64 elements (the others need a floating-point input: the op layer gives
// exp, log, ... of an integer tensor a floating result before the kernel runs).
EMBER_HOST_DEVICE inline bool takes_integers(UnaryOp op, double exponent) {
  return op == UnaryOp::Neg || op == UnaryOp::Relu || op == UnaryOp::Sign || op == UnaryOp::Abs ||
         (op == UnaryOp::Pow && exponent >= 0 && exponent == floor(exponent));
}
// op(x) for an int64 element, for the ops that take integers.
EMBER_HOST_DEVICE inline int64_t unary_integer_formula(UnaryOp op, int64_t x, double exponent) {
  switch (op) {
    case UnaryOp::Neg: return minus(int64_t{0}, x);
    case UnaryOp::Relu: return x < 0 ? 0 : x;
    case UnaryOp::Pow: return integer_power(x, static_cast<uint64_t>(exponent));
    case UnaryOp::Sign: return (0 < x) - (x < 0);
    case UnaryOp::Abs: return x < 0 ? minus(int64_t{0}, x) : x;  // wraps: |INT64_MIN| is INT64_MIN
    default: return x;
  }
}

}  // namespace ember::kernels
