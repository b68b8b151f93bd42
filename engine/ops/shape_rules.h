// PyTorch's shape arithmetic, with its error texts: broadcasting two shapes, inferring a -1 in
// view/reshape, and finding strides that let a view reinterpret a strided tensor without copying.
#pragma once
#include <optional>

#include "core/dims.h"

namespace ember {

// The broadcast of a and b ("The size of tensor a (3) must match the size of tensor b (4) at
// non-singleton dimension 1").
Dims broadcast_shapes(const Dims& a, const Dims& b);
// Replaces a single -1 in `shape` so that it holds `numel` elements.
Dims infer_size(const Dims& shape, int64_t numel);
// Strides for viewing a tensor of (sizes, strides) as `new_sizes`, or nullopt when the view would
// have to span two separately strided chunks (then reshape must copy).
std::optional<Dims> view_strides(const Dims& sizes, const Dims& strides, const Dims& new_sizes);
// PyTorch 1.13's should_fold: whether matmul folds a tensor of (sizes, strides), multiplied with
// an operand of `other_dim` dims, into the rows of one mm or mv instead of running bmm. It folds
// a batch (3 dims or more) times a matrix or a vector, unless it is a 3-D batch of transposed
// matrices (permute(0, 2, 1)) times a matrix: folding that would copy it, while bmm takes each
// transposed matrix as it is.
bool matmul_folds(const Dims& sizes, const Dims& strides, int64_t other_dim);

}  // namespace ember
