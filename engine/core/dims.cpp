// Helpers on Dims that error messages and layout code share.
#include "dims.h"

#include <ostream>

#include "size_arithmetic.h"

namespace ember {

std::string to_string(const Dims& dims) {
  std::string out = "[";
  for (int64_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

std::ostream& operator<<(std::ostream& out, const Dims& dims) { return out << to_string(dims); }

std::string join_x(const Dims& dims) {
  std::string out;
  for (int64_t i = 0; i < dims.size(); ++i) {
    if (i) out += "x";
    out += std::to_string(dims[i]);
  }
  return out;
}

int64_t product(const Dims& dims) { return checked_numel(dims); }

Dims contiguous_strides(const Dims& sizes) {
  Dims strides = Dims::filled(sizes.size(), 1);
  for (int64_t d = sizes.size() - 2; d >= 0; --d)
    strides[d] = wrapping_multiply(strides[d + 1], std::max<int64_t>(sizes[d + 1], 1));
  return strides;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  if (ndim <= 0) ndim = 1;                      // a 0-dim tensor accepts dim 0 and -1, as in PyTorch
  if (dim < -ndim || dim >= ndim) [[unlikely]]  // an IndexError, as ATen's maybe_wrap_dim (TORCH_CHECK_INDEX)
    throw IndexError(str_cat("Dimension out of range (expected to be in range of [", -ndim, ", ", ndim - 1,
                             "], but got ", dim, ")"));
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace ember
