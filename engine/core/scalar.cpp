// Scalar's checked conversions and its printing (scalar.h), as c10::Scalar's.
#include "scalar.h"

#include <cmath>
#include <ostream>

#include "error.h"

namespace ember {

void Scalar::check_fits(double lowest, double largest, bool floating, const char* type_name) const {
  bool fits = false;
  if (kind_ != DType::Float64) fits = integer_ >= lowest && integer_ <= largest;
  else if (std::isnan(value_) || std::isinf(value_)) fits = floating;
  else fits = value_ >= lowest && value_ <= largest;
  EMBER_CHECK(fits, "value cannot be converted to type ", type_name, " without overflow");
}

std::ostream& operator<<(std::ostream& out, const Scalar& value) {
  if (value.is_floating_point()) return out << value.to_double();
  if (value.is_bool()) return out << (value.to_int() != 0 ? "true" : "false");
  return out << value.to_int();
}

}  // namespace ember
