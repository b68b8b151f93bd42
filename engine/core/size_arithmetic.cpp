// The checked size arithmetic of size_arithmetic.h, with c10's texts.
#include "size_arithmetic.h"

#include <limits>

namespace ember {

namespace {
constexpr uint64_t kLargestSize = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}  // namespace

bool product_overflows(const Dims& sizes, uint64_t* product) {
  uint64_t result = 1;
  bool overflowed = false;
  for (int64_t size : sizes) overflowed |= multiply_overflows(result, static_cast<uint64_t>(size), &result);
  *product = result;
  return overflowed;
}

int64_t checked_numel(const Dims& sizes) {
  uint64_t count = 1;
  bool overflowed = product_overflows(sizes, &count) || count > kLargestSize;
  for (int64_t size : sizes) overflowed |= size < 0;
  EMBER_CHECK(!overflowed, "numel: integer multiplication overflow");
  return static_cast<int64_t>(count);
}

int64_t storage_nbytes_contiguous(const Dims& sizes, int64_t element_size, int64_t storage_offset) {
  uint64_t bytes = 1;
  bool overflowed = product_overflows(sizes, &bytes);
  overflowed |= add_overflows(bytes, static_cast<uint64_t>(storage_offset), &bytes);
  overflowed |= multiply_overflows(bytes, static_cast<uint64_t>(element_size), &bytes);
  overflowed |= bytes > kLargestSize;
  EMBER_CHECK(!overflowed, "Storage size calculation overflowed with sizes=", to_string(sizes));
  return static_cast<int64_t>(bytes);
}

int64_t storage_nbytes(const Dims& sizes, const Dims& strides, int64_t element_size, int64_t storage_offset) {
  uint64_t elements = static_cast<uint64_t>(storage_offset) + 1;  // one past the farthest element
  bool overflowed = storage_offset < 0 || elements > kLargestSize;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    uint64_t extent = 0;
    overflowed |= multiply_overflows(static_cast<uint64_t>(strides[d]), static_cast<uint64_t>(sizes[d] - 1), &extent);
    overflowed |= add_overflows(elements, extent, &elements);
  }
  uint64_t bytes = 0;
  overflowed |= multiply_overflows(elements, static_cast<uint64_t>(element_size), &bytes);
  overflowed |= bytes > kLargestSize;
  EMBER_CHECK(!overflowed, "Storage size calculation overflowed with sizes=", to_string(sizes),
              " and strides=", to_string(strides));
  return static_cast<int64_t>(bytes);
}

}  // namespace ember
