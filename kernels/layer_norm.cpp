// Layer norm forward with Eigen: two passes per row (mean, then centred variance), which is as
// accurate as PyTorch's Welford update for these sizes and simpler to read.
#include "kernel_list.h"

#include "eigen.h"

#include <cmath>

namespace ember::kernels::cpu {

namespace {
template <typename T>
void rows_impl(T* y, T* mean_out, T* rstd_out, const T* x, const T* weight, const T* bias, int64_t rows, int64_t n,
               double eps) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<const Array> row(x + r * n, n);
    Eigen::Map<Array> out(y + r * n, n);
    const T mean = row.mean();
    const T variance = (row - mean).square().mean();
    const T rstd = T(1) / std::sqrt(variance + static_cast<T>(eps));
    out = (row - mean) * rstd;
    if (weight) out *= Eigen::Map<const Array>(weight, n);
    if (bias) out += Eigen::Map<const Array>(bias, n);
    mean_out[r] = mean;
    rstd_out[r] = rstd;
  }
}
}  // namespace

void layer_norm_rows(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                     const Tensor& bias, int64_t rows, int64_t n, double eps) {
  if (x.dtype() == kFloat64) {
    rows_impl(y.data_ptr<double>(), mean.data_ptr<double>(), rstd.data_ptr<double>(), x.data_ptr<double>(),
              weight.defined() ? weight.data_ptr<double>() : nullptr,
              bias.defined() ? bias.data_ptr<double>() : nullptr, rows, n, eps);
  } else {
    rows_impl(y.data_ptr<float>(), mean.data_ptr<float>(), rstd.data_ptr<float>(), x.data_ptr<float>(),
              weight.defined() ? weight.data_ptr<float>() : nullptr, bias.defined() ? bias.data_ptr<float>() : nullptr,
              rows, n, eps);
  }
}

}  // namespace ember::kernels::cpu
