// visit_dtype: turn a runtime dtype into a compile-time C++ type. The callback receives a value
// of the element type (float{}, double{}, ...) and uses `decltype` to name it, so one generic
// kernel body serves every dtype:  visit_dtype(t.dtype(), [&](auto tag) { using T = decltype(tag); ... });
#pragma once
#include <cstdint>

#include "core/low_precision.h"
#include "core/tensor.h"

namespace ember::kernels {

// The 16-bit float types are ember's by default; the CUDA kernels name CUDA's (visit_device_dtype).
template <typename BFloat16Type = BFloat16, typename Float16Type = Float16, typename F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::BFloat16: return f(BFloat16Type{});
    case DType::Float16: return f(Float16Type{});
    case DType::Int64: return f(int64_t{});
    case DType::Bool: return f(bool{});
    case DType::UInt8: return f(uint8_t{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::Int32: return f(int32_t{});
  }
  EMBER_INTERNAL_ASSERT(false, "unknown dtype ", static_cast<int>(dtype));
  __builtin_unreachable();
}

// The dtypes arithmetic kernels compute in: float32, float64 and int64 (bool, the narrower
// integers and the 16-bit floats are converted to one of these by the op layer first, as PyTorch
// computes the 16-bit floats in float).
template <typename F>
decltype(auto) visit_compute_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int64: return f(int64_t{});
    default: break;
  }
  throw Error(str_cat("ember kernels compute in Float, Double or Long, not ", scalar_type_name(dtype)));
}

}  // namespace ember::kernels
