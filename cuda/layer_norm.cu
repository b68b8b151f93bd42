// Layer norm forward on the GPU, one block per row: the mean, then the centred (biased) variance,
// each with block_reduce, then y = (x - mean) * rstd * weight + bias. Two passes, as kernels/.
#include <cmath>

#include "device_loops.cuh"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {
namespace {

template <typename T>
__global__ void layer_norm_kernel(T* y, T* mean_out, T* rstd_out, const T* x, const T* weight, const T* bias, int64_t n,
                                  double eps) {
  const T* row = x + blockIdx.x * n;
  T* out = y + blockIdx.x * n;
  auto add = [](T a, T b) { return a + b; };
  T sum = T(0);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += row[i];
  const T mean = block_reduce(sum, add) / static_cast<T>(n);
  T squares = T(0);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) squares += (row[i] - mean) * (row[i] - mean);
  const T variance = block_reduce(squares, add) / static_cast<T>(n);
  const T rstd = T(1) / sqrt(variance + static_cast<T>(eps));
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    T value = (row[i] - mean) * rstd;
    if (weight) value *= weight[i];
    if (bias) value += bias[i];
    out[i] = value;
  }
  if (threadIdx.x == 0) {
    mean_out[blockIdx.x] = mean;
    rstd_out[blockIdx.x] = rstd;
  }
}

template <typename T>
void launch(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
            const Tensor& bias, int64_t rows, int64_t n, double eps) {
  layer_norm_kernel<T><<<static_cast<unsigned>(rows), kThreadsPerBlock>>>(
      y.data_ptr<T>(), mean.data_ptr<T>(), rstd.data_ptr<T>(), x.data_ptr<T>(),
      weight.defined() ? weight.data_ptr<T>() : nullptr, bias.defined() ? bias.data_ptr<T>() : nullptr, n, eps);
  check_launch("layer_norm");
}

}  // namespace

void layer_norm_rows(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                     const Tensor& bias, int64_t rows, int64_t n, double eps) {
  if (rows == 0) return;
  if (x.dtype() == kFloat64) launch<double>(y, mean, rstd, x, weight, bias, rows, n, eps);
  else launch<float>(y, mean, rstd, x, weight, bias, rows, n, eps);
}

}  // namespace ember::kernels::cuda
