// Element-wise kernels on the GPU: one grid-stride loop each (device_loops.cuh) over the formulas
// the CPU kernels use too (kernels/element_math.h: wrapping integer arithmetic, the fused
// multiply-add, maximum and minimum, addcmul and addcdiv, the unary ops).
#include "device_loops.cuh"
#include "kernels/element_math.h"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {
namespace {

template <typename T>
void binary_as(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  const T k = std::is_integral_v<T> ? static_cast<T>(alpha.to_int()) : static_cast<T>(alpha.to_double());
  switch (op) {
    case BinaryOp::Add:
      map_elements<T, T, T>(
          out, {a, b}, [k] __device__(T x, T y) { return multiply_add(k, y, x); }, "add");
      break;
    case BinaryOp::Sub:
      map_elements<T, T, T>(
          out, {a, b}, [k] __device__(T x, T y) { return multiply_add(negated(k), y, x); }, "sub");
      break;
    case BinaryOp::Mul:
      map_elements<T, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return times(x, y); }, "mul");
      break;
    case BinaryOp::Div:
      if constexpr (std::is_integral_v<T>)
        throw Error("ember: integer division must be promoted to floating point by the caller");
      else
        map_elements<T, T, T>(
            out, {a, b}, [] __device__(T x, T y) { return x / y; }, "div");
      break;
    case BinaryOp::Maximum:
      map_elements<T, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return maximum(x, y); }, "maximum");
      break;
    case BinaryOp::Minimum:
      map_elements<T, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return minimum(x, y); }, "minimum");
      break;
    case BinaryOp::Atan2:
      if constexpr (std::is_integral_v<T>)
        throw Error("ember: atan2 of integers must be promoted to floating point by the caller");
      else
        map_elements<T, T, T>(
            out, {a, b}, [] __device__(T y, T x) { return atan2(y, x); }, "atan2");
      break;
    case BinaryOp::FloorDivide:
      map_elements<T, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return floor_divide(x, y); }, "floor_divide");
      break;
    case BinaryOp::Remainder:
      map_elements<T, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return remainder(x, y); }, "remainder");
      break;
  }
}

template <typename T>
void ternary_as(TernaryOp op, const Tensor& out, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                Scalar value) {
  const T v = std::is_integral_v<T> ? static_cast<T>(value.to_int()) : static_cast<T>(value.to_double());
  if (op == TernaryOp::Addcmul) {
    map_elements<T, T, T, T>(
        out, {self, tensor1, tensor2}, [v] __device__(T s, T x, T y) { return addcmul(s, x, y, v); }, "addcmul");
  } else if constexpr (std::is_integral_v<T>) {
    throw Error("ember: addcdiv of integers is refused by the caller");
  } else {
    map_elements<T, T, T, T>(
        out, {self, tensor1, tensor2}, [v] __device__(T s, T x, T y) { return addcdiv(s, x, y, v); }, "addcdiv");
  }
}

template <typename T>
void compare_as(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case CompareOp::Eq:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x == y; }, "eq");
      break;
    case CompareOp::Ne:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x != y; }, "ne");
      break;
    case CompareOp::Lt:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x < y; }, "lt");
      break;
    case CompareOp::Le:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x <= y; }, "le");
      break;
    case CompareOp::Gt:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x > y; }, "gt");
      break;
    case CompareOp::Ge:
      map_elements<bool, T, T>(
          out, {a, b}, [] __device__(T x, T y) { return x >= y; }, "ge");
      break;
  }
}

template <typename T>
void where_as(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  map_elements<T, bool, T, T>(
      out, {condition, a, b}, [] __device__(bool c, T x, T y) { return c ? x : y; }, "where");
}

template <typename T>
void threshold_backward_as(const Tensor& out, const Tensor& grad, const Tensor& self, T limit) {
  map_elements<T, T, T>(
      out, {grad, self}, [limit] __device__(T g, T x) { return x <= limit ? T(0) : g; }, "threshold_backward");
}

}  // namespace

// (Extended __device__ lambdas cannot live inside the generic lambda a dtype visit takes, so each
// kernel body is a function template and the visit only picks the instance.)
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  visit_compute_dtype(out.dtype(), [&](auto tag) { binary_as<decltype(tag)>(op, out, a, b, alpha); });
}

void ternary(TernaryOp op, const Tensor& out, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
             Scalar value) {
  visit_compute_dtype(out.dtype(),
                      [&](auto tag) { ternary_as<decltype(tag)>(op, out, self, tensor1, tensor2, value); });
}

void compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  visit_compute_dtype(a.dtype(), [&](auto tag) { compare_as<decltype(tag)>(op, out, a, b); });
}

void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b) {
  visit_device_dtype(out.dtype(), [&](auto tag) { where_as<decltype(tag)>(out, condition, a, b); });
}

void threshold_backward(const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold) {
  visit_compute_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    threshold_backward_as<T>(out, grad, self, static_cast<T>(threshold.to_double()));
  });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in, double exponent) {
  switch (in.dtype()) {
    case DType::Float32:
      map_elements<float, float>(
          out, {in}, [=] __device__(float x) { return unary_formula(op, x, exponent); }, "unary");
      return;
    case DType::Float64:
      map_elements<double, double>(
          out, {in}, [=] __device__(double x) { return unary_formula(op, x, exponent); }, "unary");
      return;
    case DType::Int64:
      EMBER_CHECK(takes_integers(op, exponent), "ember: this unary op needs a floating-point input");
      map_elements<int64_t, int64_t>(
          out, {in}, [=] __device__(int64_t x) { return unary_integer_formula(op, x, exponent); }, "unary");
      return;
    default: throw Error(str_cat("ember: unary kernels do not take ", scalar_type_name(in.dtype())));
  }
}

}  // namespace ember::kernels::cuda
