// Scalar: a number passed to an op (`t + 2`, `t * 0.5`). It remembers whether it was written as
// an integer, a floating-point number or a bool, because PyTorch's type promotion does:
// `int_tensor + 2` stays int64 while `int_tensor + 2.5` becomes float32.
#pragma once
#include <cstdint>
#include <type_traits>

#include "dtype.h"

namespace ember {

class Scalar {
 public:
  Scalar(double v) : value_(v), kind_(DType::Float64) {}
  Scalar(float v) : value_(v), kind_(DType::Float64) {}
  Scalar(bool v) : value_(v ? 1.0 : 0.0), integer_(v), kind_(DType::Bool) {}
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  Scalar(I v) : value_(static_cast<double>(v)),
                integer_(static_cast<int64_t>(v)),
                kind_(DType::Int64) {}

  double to_double() const { return value_; }
  // A floating number converts like a float-to-int64 tensor cast (truncation; NaN and values
  // out of range give INT64_MIN, as x86 does) instead of undefined behaviour.
  int64_t to_int() const {
    if (kind_ != DType::Float64) return integer_;
    return value_ >= -9.2233720368547758e18 && value_ < 9.2233720368547758e18 ? static_cast<int64_t>(value_)
                                                                              : INT64_MIN;
  }
  bool is_floating_point() const { return kind_ == DType::Float64; }
  bool is_integral() const { return kind_ == DType::Int64; }
  bool is_bool() const { return kind_ == DType::Bool; }
  // Float64, Int64 or Bool: what kind of number this is (a "wrapped number" in PyTorch).
  DType kind() const { return kind_; }

 private:
  double value_ = 0;
  int64_t integer_ = 0;
  DType kind_;
};

}  // namespace ember
