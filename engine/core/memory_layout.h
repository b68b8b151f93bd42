// Which strides a new tensor gets. PyTorch keeps the *layout* of an op's input in its output:
// `x.t() * 2` and `x.t().clone()` come out transposed (not contiguous), so that a later
// `.contiguous()` copies rather than aliases, and element-wise chains on a permuted tensor stay
// in memory order. These are ATen's rules (TensorIterator's output strides, empty_like with
// memory_format=preserve), on sizes and strides alone.
#pragma once
#include <span>

#include "dims.h"

namespace ember {

// A tensor's sizes and strides.
struct Layout {
  const Dims& sizes;
  const Dims& strides;
};

// Row-major without gaps; size-1 dims may have any stride, and an empty tensor is contiguous
// whatever its strides (Tensor::is_contiguous).
bool is_contiguous(const Layout& t);

// True when the elements fill a block of memory exactly once, in some order of the dims
// (PyTorch's is_non_overlapping_and_dense): a permuted contiguous tensor, not a slice with gaps
// or an expanded tensor.
bool is_non_overlapping_and_dense(const Layout& t);

// Dense strides with the dims in the same memory order as t's (ATen's infer_dense_strides):
// what empty_like(t) and so clone() and to(dtype) give a tensor that is not dense.
Dims dense_strides_like(const Layout& t);

// The channels-last strides of a 4-d (N, C, H, W) shape: the channels of a pixel side by side,
// (C H W, 1, W C, C), PyTorch's torch.channels_last. "required rank 4 tensor to use channels_last
// format" for another rank.
Dims channels_last_strides(const Dims& sizes);

// The layout empty_like(t) gives: t's own strides when it is non-overlapping and dense, else
// dense_strides_like(t).
Dims preserved_strides(const Layout& t);

// The strides of an element-wise op's output of sizes `shape`, given its inputs (TensorIterator's
// rule): contiguous when every input is; the inputs' strides when all have `shape` and the same
// dense strides; otherwise the dims ordered by the inputs' strides (the first input that orders
// a pair of dims decides; broadcast dims decide nothing), laid out densely in that order.
// (PyTorch's channels-last fast path for 4-d tensors is not reproduced.)
Dims elementwise_output_strides(const Dims& shape, std::span<const Layout> inputs);

}  // namespace ember
