// Copying elements between CPU tensors of the same sizes and any strides and dtypes, and filling.
// Every copy the op layer makes (contiguous, clone, casts, copy_) ends here.
#pragma once
#include <limits>
#include <type_traits>

#include "tensor.h"

namespace ember::kernels {

namespace cpu {
// dst[i] = convert(src[i]); dst and src have equal sizes (src may have zero strides).
void copy(const Tensor& dst, const Tensor& src);
// dst[i] = value
void fill(const Tensor& dst, Scalar value);
}  // namespace cpu

// Conversion between element types as PyTorch does it: 16-bit floats go through float32,
// to-bool is "!= 0", and float-to-int truncates (NaN and out-of-range give INT64_MIN, as x86 does).
template <typename To, typename From>
To convert(From value) {
  if constexpr (std::is_same_v<From, BFloat16> || std::is_same_v<From, Float16>) {
    return convert<To>(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From(0);
  } else if constexpr (std::is_same_v<To, BFloat16> || std::is_same_v<To, Float16>) {
    return To(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (!(value >= From(-9.2233720368547758e18) && value < From(9.2233720368547758e18)))
      return std::numeric_limits<To>::min();
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace ember::kernels
