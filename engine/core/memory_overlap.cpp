// In-place writes checked for overlap (see memory_overlap.h).
#include "memory_overlap.h"

#include "memory_layout.h"

namespace ember::internal {

void check_no_internal_overlap(const Tensor& written) {
  if (written.numel() == 0) return;  // empty is contiguous, whatever its strides (PyTorch's first test)
  for (int64_t d = 0; d < written.dim(); ++d)
    EMBER_CHECK(!(written.stride(d) == 0 && written.size(d) > 1),
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
}

// PyTorch's get_overlap_status (c10/core/MemoryOverlap.cpp): only two tensors that are both
// non-overlapping and dense are compared (anything else is "too hard" and let through, as PyTorch
// lets it through); the same byte range with the same strides is the same tensor (a += a); any
// other shared bytes are a partial overlap.
void check_no_partial_overlap(const Tensor& written, const Tensor& read) {
  if (written.impl()->storage != read.impl()->storage || written.numel() == 0 || read.numel() == 0) return;
  if (!is_non_overlapping_and_dense({written.sizes(), written.strides()}) ||
      !is_non_overlapping_and_dense({read.sizes(), read.strides()}))
    return;
  const int64_t w_begin = written.storage_offset() * written.element_size();
  const int64_t w_end = w_begin + written.numel() * written.element_size();
  const int64_t r_begin = read.storage_offset() * read.element_size();
  const int64_t r_end = r_begin + read.numel() * read.element_size();
  const bool same_tensor = w_begin == r_begin && w_end == r_end && written.strides() == read.strides();
  EMBER_CHECK(same_tensor || w_end <= r_begin || r_end <= w_begin,
              "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

void check_writable(const Tensor& written, const Tensor& read) {
  check_no_internal_overlap(written);
  if (read.defined()) check_no_partial_overlap(written, read);
}

}  // namespace ember::internal
