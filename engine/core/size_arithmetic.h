// Size arithmetic that cannot overflow. Every place where a shape becomes a number (an element
// count, a stride, a storage offset, a byte count) goes through these functions, because a size
// that wrapped around is worse than a crash: resize_ once gave a tensor of 2^62 elements 8 bytes of
// storage, and a later write went wherever the wrapped offset pointed. Signed overflow is also
// undefined behaviour in C++, which UndefinedBehaviorSanitizer reports.
//
// As c10 does (safe_multiplies_u64, computeStorageNbytes), each product and sum is computed in
// unsigned 64-bit numbers with its overflow checked, and a size that does not fit raises PyTorch's
// text: "numel: integer multiplication overflow" for an element count, "Storage size calculation
// overflowed with sizes=[...]" for a byte count. Where PyTorch's own arithmetic silently wraps
// around (the stride of a dim before an empty one, which no element is ever reached through),
// ember wraps the same way, through unsigned numbers, where wrapping is defined.
#pragma once
#include <cstdint>

#include "dims.h"

namespace ember {

// a * b and a + b, and whether they overflowed 64 unsigned bits (c10::mul_overflows, add_overflows).
inline bool multiply_overflows(uint64_t a, uint64_t b, uint64_t* result) {
  return __builtin_mul_overflow(a, b, result);
}
inline bool add_overflows(uint64_t a, uint64_t b, uint64_t* result) { return __builtin_add_overflow(a, b, result); }

// The product of `sizes` read as unsigned numbers, and whether a step overflowed on the way
// (c10::safe_multiplies_u64). A later 0 does not undo an overflow: [2^62, 2^62, 0] overflows,
// [0, 2^62, 2^62] does not.
bool product_overflows(const Dims& sizes, uint64_t* product);

// The element count of a tensor of these sizes, or PyTorch's "numel: integer multiplication
// overflow" when it does not fit in int64 or a size is negative. (c10 reads a negative size as a
// huge unsigned one, so [-1] overflows but [-1, 0] has 0 elements; ember refuses every negative
// size, as a tensor can have none.)
int64_t checked_numel(const Dims& sizes);

// Bytes of storage a contiguous tensor of `sizes` needs past `storage_offset` elements
// (c10's computeStorageNbytesContiguous): (storage_offset + numel) * element_size, or "Storage size
// calculation overflowed with sizes=[...]" when that does not fit in int64.
int64_t storage_nbytes_contiguous(const Dims& sizes, int64_t element_size, int64_t storage_offset = 0);
// Bytes of storage a strided tensor needs (c10's computeStorageNbytes): one element past the
// farthest one it reaches, 0 when it has no elements, or "Storage size calculation overflowed with
// sizes=[...] and strides=[...]". Strides must not be negative.
int64_t storage_nbytes(const Dims& sizes, const Dims& strides, int64_t element_size, int64_t storage_offset = 0);

// a * b and a + b wrapped around as two's complement numbers, as PyTorch's size arithmetic
// wraps where it does not check (contiguous strides past an empty dim, the total of cat's sizes).
inline int64_t wrapping_multiply(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

}  // namespace ember
