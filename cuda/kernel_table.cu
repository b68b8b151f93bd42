// The CUDA kernel table: every line of kernels/kernel_list.h pointed at its cuda/ kernel.
#include "kernels/backend.h"

namespace ember::kernels {

void register_cuda_kernels(KernelTable& table) {
  table.binary = cuda::binary;
  table.ternary = cuda::ternary;
  table.compare = cuda::compare;
  table.unary = cuda::unary;
  table.where = cuda::where;
  table.threshold_backward = cuda::threshold_backward;
  table.copy = cuda::copy;
  table.fill = cuda::fill;
  table.reduce_rows = cuda::reduce_rows;
  table.sum_columns = cuda::sum_columns;
  table.scatter_rows = cuda::scatter_rows;
  table.softmax_rows = cuda::softmax_rows;
  table.layer_norm_rows = cuda::layer_norm_rows;
  table.nll_loss_forward = cuda::nll_loss_forward;
  table.nll_loss_backward = cuda::nll_loss_backward;
  table.gemm = cuda::gemm;
}

}  // namespace ember::kernels
