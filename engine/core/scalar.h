// Scalar: a number passed to an op (`t + 2`, `t * 0.5`) or read out of one (`loss.item()`). It
// remembers whether it was written as an integer, a floating-point number or a bool, because
// PyTorch's type promotion does: `int_tensor + 2` stays int64 while `int_tensor + 2.5` becomes
// float32.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <type_traits>

#include "dtype.h"

namespace ember {

class Scalar {
 public:
  Scalar(double v) : value_(v), kind_(DType::Float64) {}
  Scalar(float v) : value_(v), kind_(DType::Float64) {}
  Scalar(bool v) : integer_(v), kind_(DType::Bool) {}
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>>>
  Scalar(I v) : integer_(static_cast<int64_t>(v)),
                kind_(DType::Int64) {}

  double to_double() const { return kind_ == DType::Float64 ? value_ : static_cast<double>(integer_); }
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

  // ---- libtorch's accessors (c10::Scalar), for `loss.item().to<float>()` ----
  // The value as T (double, float, int64_t, int or bool), converted as libtorch converts it: a
  // fraction is truncated toward zero, and a value T cannot hold is refused with PyTorch's text,
  // "value cannot be converted to type int64_t without overflow" (NaN and infinities do fit a
  // float; anything converts to bool, non-zero being true). to_int() above converts as a tensor
  // cast does instead, never refusing.
  template <typename T>
  T to() const;
  // The same under libtorch's names: toDouble() is to<double>(), toLong() is to<int64_t>(), ...
  double toDouble() const { return to<double>(); }
  float toFloat() const { return to<float>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int toInt() const { return to<int>(); }
  bool toBool() const { return to<bool>(); }

 private:
  // Whether this floating value fits between T's lowest and largest (NaN and infinities fit a
  // floating T, never an integer one), or this integer fits T; throws PyTorch's text if not.
  void check_fits(double lowest, double largest, bool floating, const char* type_name) const;

  // One number in 16 bytes, so a Scalar passed by value travels in two registers. At 24 bytes it
  // went through the stack, and each op paid a stalled reload of it (stored field by field, then
  // copied in one 16-byte load: a store-forwarding stall). Without it a 1-element `a + b` is 15-20%
  // faster on Sapphire Rapids.
  union {
    double value_;     // kind_ Float64
    int64_t integer_;  // kind_ Int64 or Bool (0 or 1)
  };
  DType kind_;
};
static_assert(sizeof(Scalar) == 16);

template <typename T>
T Scalar::to() const {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, int64_t> ||
                    std::is_same_v<T, int> || std::is_same_v<T, bool>,
                "Scalar::to<T>() converts to double, float, int64_t, int or bool");
  if constexpr (std::is_same_v<T, bool>) {
    return kind_ == DType::Float64 ? value_ != 0 : integer_ != 0;
  } else if constexpr (std::is_same_v<T, double>) {
    return to_double();
  } else if constexpr (std::is_same_v<T, float>) {
    check_fits(-3.4028234663852886e38, 3.4028234663852886e38, true, "float");
    return static_cast<float>(to_double());
  } else if constexpr (std::is_same_v<T, int64_t>) {
    if (kind_ != DType::Float64) return integer_;
    // Up to the largest double below 2^63 (c10 also lets 2^63 itself through, into undefined behaviour).
    check_fits(-9.2233720368547758e18, 9.2233720368547748e18, false, "int64_t");
    return static_cast<int64_t>(value_);
  } else {
    check_fits(-2147483648.0, 2147483647.0, false, "int");
    return kind_ == DType::Float64 ? static_cast<int>(value_) : static_cast<int>(integer_);
  }
}

// As libtorch prints a Scalar: a floating value as a double ("0.25"), an integer as itself, a
// bool as "true" or "false".
std::ostream& operator<<(std::ostream& out, const Scalar& value);

}  // namespace ember
