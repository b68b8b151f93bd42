// Whether an in-place write may go ahead, judged from layouts alone (c10's MemoryOverlap): it must
// not hit one memory location twice (an expanded tensor), nor read memory it is writing unless it
// reads exactly the same elements (a += a is fine, a[1:] += a[:-1] is not).
#pragma once
#include "tensor.h"

namespace ember::internal {

// "unsupported operation: more than one element of the written-to tensor refers to a single memory location."
void check_no_internal_overlap(const Tensor& written);
// "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory
// location."
void check_no_partial_overlap(const Tensor& written, const Tensor& read);

// Both checks, as every in-place write into `written` makes them (`read` may be undefined).
void check_writable(const Tensor& written, const Tensor& read);

}  // namespace ember::internal
