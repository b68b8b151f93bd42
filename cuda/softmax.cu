// Row-wise (log-)softmax on the GPU, one block per row of the contiguous [rows, n] input:
// the row maximum, then the sum of exp(x - max), each with block_reduce; then every element.
#include <cmath>

#include "device_loops.cuh"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {
namespace {

template <typename T>
__global__ void softmax_kernel(T* out, const T* in, int64_t n, bool log_softmax) {
  const T* x = in + blockIdx.x * n;
  T* y = out + blockIdx.x * n;
  T max = -INFINITY;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) max = isnan(x[i]) || x[i] > max ? x[i] : max;
  max = block_reduce(max, [](T a, T b) { return isnan(a) || a > b ? a : b; });
  T sum = T(0);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += exp(x[i] - max);
  sum = block_reduce(sum, [](T a, T b) { return a + b; });
  const T log_sum = log(sum);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    y[i] = log_softmax ? (x[i] - max) - log_sum : exp(x[i] - max) / sum;
}

}  // namespace

void softmax_rows(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log) {
  if (n == 0 || rows == 0) return;
  if (in.dtype() == kFloat64)
    softmax_kernel<double>
        <<<static_cast<unsigned>(rows), kThreadsPerBlock>>>(out.data_ptr<double>(), in.data_ptr<double>(), n, log);
  else
    softmax_kernel<float>
        <<<static_cast<unsigned>(rows), kThreadsPerBlock>>>(out.data_ptr<float>(), in.data_ptr<float>(), n, log);
  check_launch(log ? "log_softmax" : "softmax");
}

}  // namespace ember::kernels::cuda
