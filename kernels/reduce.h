// Reduction kernels over the rows of a contiguous [outer, inner] matrix: the op layer moves the
// reduced dimensions to the end and makes the input contiguous, so every reduction reduces rows;
// a sum over leading dims of a contiguous input reduces columns instead (sum_columns).
#pragma once
#include "core/tensor.h"

namespace ember::kernels {

enum class ReduceOp { Sum, Max, Min };

// values[r] = reduce(in[r, :]) for r < outer; `in` contiguous, values contiguous [outer].
// Sum: float32/float64/int64 in -> same dtype out. Max/Min also write the index of the first
// extreme element (first NaN wins: NaN propagates, as in PyTorch) into `indices` when defined.
namespace cpu {
void reduce_rows(ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                 const Tensor& indices);
// sums[j] = sum over r of in[r, j] for a contiguous [rows, columns] `in` (float32/float64/int64) and
// a contiguous sums [columns]: a sum over the leading dims (a bias's gradient) without first moving
// them to the end, which would be a transposing copy. Each column is summed by one thread.
void sum_columns(const Tensor& in, int64_t rows, int64_t columns, const Tensor& sums);
// The way back (max/min's gradient): out[o, indices[o, i], i] = values[o, i] for a contiguous
// out [outer, size, inner] (zeroed by the caller) and contiguous values/indices [outer, inner].
void scatter_rows(const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer, int64_t size,
                  int64_t inner);
}  // namespace cpu

}  // namespace ember::kernels
