// Matrix multiplication, the kernel the chapter's profiler finds at the top of every table.
// float32 and bfloat16 run on oneDNN (the library PyTorch's CPU build also uses for these);
// float64 and int64 on Eigen.
#pragma once
#include "core/tensor.h"

namespace ember::kernels::cpu {

// For each batch index: out = alpha * (a @ b) + beta * out (+ bias along the last dim).
// a: [B, M, K], b: [B, K, N] with any strides; out: contiguous [B, M, N]; bias: undefined or
// contiguous [N]. When beta != 0, out already holds the addend. a and b must have
// has_gemm_layout (backend.h; the op copies an operand that has not) and a non-empty inner dimension.
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias);

}  // namespace ember::kernels::cpu
