// Layer normalisation over the last n elements of each row of a contiguous [rows, n] tensor:
// y = (x - mean) / sqrt(var + eps) * weight + bias, with the biased variance, as PyTorch.
#pragma once
#include "core/tensor.h"

namespace ember::kernels::cpu {

// Writes y and, per row, the mean and rstd = 1/sqrt(var + eps) that backward reuses.
// weight/bias: undefined or contiguous [n].
void layer_norm_rows(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                     const Tensor& bias, int64_t rows, int64_t n, double eps);

}  // namespace ember::kernels::cpu
