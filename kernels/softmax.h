// Softmax and log-softmax over the last dimension of a contiguous [rows, n] tensor, computed
// the numerically safe way: subtract the row maximum before exponentiating.
#pragma once
#include "core/tensor.h"

namespace ember::kernels::cpu {

void softmax_rows(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log);

}  // namespace ember::kernels::cpu
