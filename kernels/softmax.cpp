// Row-wise (log-)softmax with Eigen: y = exp(x - max) / sum(exp(x - max)),
// log y = (x - max) - log(sum(exp(x - max))), exp exact at the edges (vectorised_math.h).
#include "kernel_list.h"

#include "eigen.h"

#include "vectorised_math.h"

namespace ember::kernels::cpu {

namespace {
template <typename T>
void rows_impl(T* out, const T* in, int64_t rows, int64_t n, bool log) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<const Array> x(in + r * n, n);
    Eigen::Map<Array> y(out + r * n, n);
    const T max = x.maxCoeff();
    y = (x - max).exp();
    // Eigen's exp is wrong only far below 0 here (vectorised_math.h): when the smallest x - max lies
    // there (a -inf mask, say), those elements are done again by libm. A NaN makes the row NaN.
    if (!exp_is_accurate(x.minCoeff() - max)) [[unlikely]]
      for (int64_t i = 0; i < n; ++i)
        if (!exp_is_accurate(x[i] - max)) y[i] = std::exp(x[i] - max);
    if (log) y = (x - max) - std::log(y.sum());
    else y /= y.sum();
  }
}
}  // namespace

void softmax_rows(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log) {
  if (n == 0) return;
  if (in.dtype() == kFloat64) rows_impl(out.data_ptr<double>(), in.data_ptr<double>(), rows, n, log);
  else rows_impl(out.data_ptr<float>(), in.data_ptr<float>(), rows, n, log);
}

}  // namespace ember::kernels::cpu
