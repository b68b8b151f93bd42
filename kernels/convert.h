// Conversion between element types as PyTorch does it, one definition for the CPU kernels and the
// CUDA kernels (nvcc compiles it for the device too): 16-bit floats go through float32, to-bool is
// "!= 0", and float-to-int truncates as x86 does: NaN and out-of-range give INT64_MIN, or
// INT32_MIN for the 32-bit and narrower signed types, whose low bits are then kept; uint8 goes
// through int64 (c10's static_cast_with_inter_type), so -1.5 becomes 255 as in NumPy.
// The 16-bit types are ember's BFloat16/Float16 on the CPU and CUDA's __nv_bfloat16/__half on the
// device; both families convert from and to float32 with round-to-nearest-even, so one body fits.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/low_precision.h"

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember::kernels {

template <typename T>
inline constexpr bool is_16bit_float_v = std::is_same_v<T, BFloat16> || std::is_same_v<T, Float16>
#ifdef __CUDACC__
                                         || std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>
#endif
    ;

template <typename To, typename From>
EMBER_HOST_DEVICE To convert(From value) {
  if constexpr (is_16bit_float_v<From>) {
    return convert<To>(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (is_16bit_float_v<To>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if constexpr (sizeof(To) == 8) {
      if (!(value >= From(-9.2233720368547758e18) && value < From(9.2233720368547758e18)))
        return std::numeric_limits<To>::min();
      return static_cast<To>(value);
    } else if constexpr (std::is_unsigned_v<To>) {
      return static_cast<To>(convert<int64_t>(value));
    } else {
      if (!(value >= From(-2147483648.0) && value < From(2147483648.0)))
        return static_cast<To>(std::numeric_limits<int32_t>::min());
      return static_cast<To>(static_cast<int32_t>(value));
    }
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace ember::kernels
