// The CUDA kernels, one declaration per entry of the kernel table (kernels/backend.h), with the
// same contracts as the CPU kernels in kernels/*.h: the op layer prepares the operands the same
// way for both devices. cuda/kernel_table.cu puts them in the table.
#pragma once
#include "core/tensor.h"
#include "kernels/elementwise.h"
#include "kernels/reduce.h"

namespace ember::kernels::cuda {

// elementwise.cu
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha);
void compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void unary(UnaryOp op, const Tensor& out, const Tensor& in, double exponent);
void where(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
void threshold_backward(const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold);
// copy.cu
void copy(const Tensor& dst, const Tensor& src);
void fill(const Tensor& dst, Scalar value);
// reduce.cu
void reduce_rows(ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                 const Tensor& indices);
void sum_columns(const Tensor& in, int64_t rows, int64_t columns, const Tensor& sums);
void scatter_rows(const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer, int64_t size,
                  int64_t inner);
// softmax.cu, layer_norm.cu, loss.cu
void softmax_rows(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log);
void layer_norm_rows(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                     const Tensor& bias, int64_t rows, int64_t n, double eps);
int64_t nll_loss_forward(const Tensor& losses, const Tensor& log_probs, const Tensor& target, int64_t ignore_index);
void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, int64_t ignore_index,
                       double scale, bool per_sample);
// matmul.cu (cuBLAS)
void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias);

}  // namespace ember::kernels::cuda
