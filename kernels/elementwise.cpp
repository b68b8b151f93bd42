// Element-wise kernels: binary and ternary arithmetic and comparisons through the strided loop
// (the contiguous runs vectorise), unary math through Eigen's vectorised array functions, and pow
// as PyTorch computes it (sleef_pow.h). All share large tensors among the threads, above the
// grain size of parallel.h.
#include "kernel_list.h"

#include "eigen.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

#include "convert.h"
#include "core/dispatch_trace.h"
#include "element_math.h"
#include "loops.h"
#include "parallel.h"
#include "sleef_pow.h"
#include "vectorised_math.h"
#include "visit_dtype.h"

namespace ember::kernels::cpu {

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  visit_compute_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T k = std::is_integral_v<T> ? static_cast<T>(alpha.to_int()) : static_cast<T>(alpha.to_double());
    switch (op) {
      case BinaryOp::Add:
        if (k == T(1)) map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return plus(x, y); });
        else map_elements<T, T, T>(out, {a, b}, [k](T x, T y) { return multiply_add(k, y, x); });
        break;
      case BinaryOp::Sub:
        if (k == T(1)) map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return minus(x, y); });
        else map_elements<T, T, T>(out, {a, b}, [k](T x, T y) { return multiply_add(negated(k), y, x); });
        break;
      case BinaryOp::Mul: map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return times(x, y); }); break;
      case BinaryOp::Div:
        if constexpr (std::is_integral_v<T>) {
          throw Error("ember: integer division must be promoted to floating point by the caller");
        } else {
          map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return x / y; });
        }
        break;
      case BinaryOp::Maximum: map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return maximum(x, y); }); break;
      case BinaryOp::Minimum: map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return minimum(x, y); }); break;
      case BinaryOp::Atan2:
        if constexpr (std::is_integral_v<T>) {
          throw Error("ember: atan2 of integers must be promoted to floating point by the caller");
        } else {
          map_elements<T, T, T>(out, {a, b}, [](T y, T x) { return std::atan2(y, x); });
        }
        break;
      case BinaryOp::FloorDivide:
        map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return floor_divide(x, y); });
        break;
      case BinaryOp::Remainder: map_elements<T, T, T>(out, {a, b}, [](T x, T y) { return remainder(x, y); }); break;
    }
  });
}

void ternary(TernaryOp op, const Tensor& out, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
             Scalar value) {
  visit_compute_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T v = std::is_integral_v<T> ? static_cast<T>(value.to_int()) : static_cast<T>(value.to_double());
    if (op == TernaryOp::Addcmul) {
      map_elements<T, T, T, T>(out, {self, tensor1, tensor2}, [v](T s, T x, T y) { return addcmul(s, x, y, v); });
    } else if constexpr (std::is_integral_v<T>) {
      throw Error("ember: addcdiv of integers is refused by the caller");
    } else {
      map_elements<T, T, T, T>(out, {self, tensor1, tensor2}, [v](T s, T x, T y) { return addcdiv(s, x, y, v); });
    }
  });
}

void compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  visit_compute_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case CompareOp::Eq: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x == y; }); break;
      case CompareOp::Ne: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x != y; }); break;
      case CompareOp::Lt: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x < y; }); break;
      case CompareOp::Le: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x <= y; }); break;
      case CompareOp::Gt: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x > y; }); break;
      case CompareOp::Ge: map_elements<bool, T, T>(out, {a, b}, [](T x, T y) { return x >= y; }); break;
    }
  });
}

namespace {

// Square roots one correctly rounded instruction per element (the loop vectorises to vsqrtps), as
// PyTorch computes them. Eigen's vectorised float sqrt (an rsqrt estimate and one Newton step) is
// not correctly rounded and turns +inf into NaN.
template <typename T>
void sqrt_exact(T* out_data, const T* in_data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out_data[i] = std::sqrt(in_data[i]);
}

// x^-0.5 as ATen's rsqrt computes it, 1 / sqrt(x), each step correctly rounded (it vectorises too).
template <typename T>
void reciprocal_sqrt(T* out_data, const T* in_data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out_data[i] = T(1) / std::sqrt(in_data[i]);
}

// exp, log and sigmoid (through exp): Eigen's vectorised forms, then the inputs at their edges again
// by libm, as Eigen's scalar code computes them (vectorised_math.h).
template <typename T>
void exact_at_edges(UnaryOp op, T* out_data, const T* in_data, int64_t n) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  auto x = [](const T* in, int64_t count) { return Eigen::Map<const Array>(in, count); };
  auto y = [](T* out, int64_t count) { return Eigen::Map<Array>(out, count); };
  if (op == UnaryOp::Exp) {
    vectorised_exact_at_edges(
        out_data, in_data, n, [&](T* out, const T* in, int64_t count) { y(out, count) = x(in, count).exp(); },
        [](T v, T) { return exp_is_accurate(v); }, [](T v) { return std::exp(v); });
  } else if (op == UnaryOp::Log) {
    vectorised_exact_at_edges(
        out_data, in_data, n, [&](T* out, const T* in, int64_t count) { y(out, count) = x(in, count).log(); },
        [](T v, T) { return log_is_accurate(v); }, [](T v) { return std::log(v); });
  } else {
    vectorised_exact_at_edges(
        out_data, in_data, n,
        [&](T* out, const T* in, int64_t count) { y(out, count) = T(1) / (T(1) + (-x(in, count)).exp()); },
        [](T v, T) { return exp_is_accurate(-v); }, [](T v) { return T(1) / (T(1) + std::exp(-v)); });
  }
}

// The exponents ATen's pow kernel computes with other operations (a fill, a copy, products, sqrt,
// a reciprocal; PowKernel.cpp and pow_out), each of which has its own case below.
bool is_special_exponent(double e) {
  return e == 0 || e == 1 || e == 2 || e == 3 || e == -2 || e == 0.5 || e == -0.5 || e == -1;
}

// x^y for every other exponent, as PyTorch's vectorised loop computes it (sleef_pow.h). A finite
// y other than 0 is looked at once, so that the loop has no branch and vectorises.
template <typename T>
void sleef_pow(T* out, const T* in, int64_t n, T y) {
  if (!std::isfinite(y) || y == 0) {  // an exponent Sleef has its own rules for
    for (int64_t i = 0; i < n; ++i) out[i] = sleef::pow(in[i], y);
    return;
  }
  const sleef::Exponent<T> e = sleef::exponent_of(y);
  for (int64_t i = 0; i < n; ++i) out[i] = sleef::pow(in[i], e);
}

template <typename T>
void unary_floating(UnaryOp op, T* out_data, const T* in_data, int64_t n, double exponent) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> x(in_data, n);
  Eigen::Map<Array> y(out_data, n);
  switch (op) {
    // A plain loop: Eigen's AVX negation of doubles computes 0 - x, which makes -0.0 of 0.0.
    case UnaryOp::Neg:
      for (int64_t i = 0; i < n; ++i) out_data[i] = -in_data[i];
      break;
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Sigmoid: exact_at_edges(op, out_data, in_data, n); break;
    case UnaryOp::Sqrt: sqrt_exact(out_data, in_data, n); break;
    // relu keeps NaN (max(NaN, 0) would drop it), as torch.relu does.
    case UnaryOp::Relu: y = (x < T(0)).select(T(0), x); break;
    case UnaryOp::Tanh: y = x.tanh(); break;
    case UnaryOp::Pow: {
      if (exponent == 0) y.setConstant(T(1));  // ATen fills the result (NaN^0 is 1)
      else if (exponent == 1) y = x;           // and copies the base
      else if (exponent == 2) y = x * x;
      else if (exponent == 3) y = x * x * x;
      else if (exponent == 0.5) sqrt_exact(out_data, in_data, n);
      else if (exponent == -0.5) reciprocal_sqrt(out_data, in_data, n);
      else if (exponent == -1) y = T(1) / x;
      else if (exponent == -2) y = T(1) / (x * x);
      else sleef_pow(out_data, in_data, n, static_cast<T>(exponent));
      break;
    }
    // Ops without a vectorised form here: the shared formula, element by element.
    default:
      for (int64_t i = 0; i < n; ++i) out_data[i] = unary_formula(op, in_data[i], exponent);
  }
}

// Large inputs are cut into pieces, one per thread (parallel.h). Pieces are whole blocks of 64
// bytes, so each element is computed by the same vector or scalar path of Eigen as in one piece
// and the result does not depend on the thread count.
template <typename T>
void unary_in_pieces(UnaryOp op, T* out_data, const T* in_data, int64_t n, double exponent) {
  constexpr int64_t kBlock = 64 / sizeof(T);
  parallel_for(0, (n + kBlock - 1) / kBlock, kGrainSize / kBlock, [&](int64_t first_block, int64_t last_block) {
    const int64_t first = first_block * kBlock, last = std::min(n, last_block * kBlock);
    unary_floating(op, out_data + first, in_data + first, last - first, exponent);
  });
  // ATen's vectorised loop takes two of its vectors, 64 bytes, at a time, and leaves the last
  // n % kBlock elements to its scalar code: pow there is libm's, in double for float32.
  if (op == UnaryOp::Pow && !is_special_exponent(exponent))
    for (int64_t i = n - n % kBlock; i < n; ++i)
      out_data[i] = static_cast<T>(std::pow(static_cast<double>(in_data[i]), exponent));
}

}  // namespace

void unary(UnaryOp op, const Tensor& out, const Tensor& in, double exponent) {
  const int64_t n = in.numel();
  if (trace::enabled()) [[unlikely]]
    trace::say("loop: one contiguous run of ", n, n == 1 ? " element" : " elements", ", in blocks of 64 bytes");
  switch (in.dtype()) {
    case DType::Float32: unary_in_pieces(op, out.data_ptr<float>(), in.data_ptr<float>(), n, exponent); return;
    case DType::Float64: unary_in_pieces(op, out.data_ptr<double>(), in.data_ptr<double>(), n, exponent); return;
    case DType::Int64: {
      EMBER_CHECK(takes_integers(op, exponent), "ember: this unary op needs a floating-point input");
      const int64_t* x = in.data_ptr<int64_t>();
      int64_t* y = out.data_ptr<int64_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = unary_integer_formula(op, x[i], exponent);
      return;
    }
    default: throw Error(str_cat("ember: unary kernels do not take ", scalar_type_name(in.dtype())));
  }
}

namespace {
// c ? x : y without a branch: the bits of x where c holds, of y elsewhere. The condition is data
// (relu's backward asks "was this input positive?"), as often true as false, and a branch
// mispredicted on every other element cost more than the whole select; this form vectorises.
template <typename T>
T select(bool c, T x, T y) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  const Bits mask = static_cast<Bits>(Bits{0} - static_cast<Bits>(c));
  return std::bit_cast<T>(static_cast<Bits>((std::bit_cast<Bits>(x) & mask) | (std::bit_cast<Bits>(y) & ~mask)));
}
}  // namespace

void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    map_elements<T, bool, T, T>(out, {condition, a, b}, [](bool c, T x, T y) { return select(c, x, y); });
  });
}

void threshold_backward(const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold) {
  visit_compute_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T limit = static_cast<T>(threshold.to_double());
    map_elements<T, T, T>(out, {grad, self}, [limit](T g, T x) { return x <= limit ? T(0) : g; });
  });
}

}  // namespace ember::kernels::cpu
