// Row reductions with Eigen (sums use Eigen's vectorised tree reduction) and a plain loop for
// max/min, whose first-index and NaN rules are easier to read written out.
#include "reduce.h"

#include <Eigen/Core>
#include <cmath>

#include "visit_dtype.h"

namespace ember::kernels::cpu {

namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

template <typename T>
void extreme_rows(bool want_max, const T* in, int64_t outer, int64_t inner, T* values, int64_t* indices) {
  for (int64_t r = 0; r < outer; ++r) {
    const T* row = in + r * inner;
    T best = row[0];
    int64_t best_index = 0;
    for (int64_t i = 1; i < inner && !is_nan(best); ++i) {
      T v = row[i];
      if (is_nan(v) || (want_max ? v > best : v < best)) {
        best = v;
        best_index = i;
      }
    }
    if (values) values[r] = best;
    if (indices) indices[r] = best_index;
  }
}

}  // namespace

void reduce_rows(ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                 const Tensor& indices) {
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = in.data_ptr<T>();
    if (op == ReduceOp::Sum) {
      T* out = values.data_ptr<T>();
      using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      if (inner == 0) {
        for (int64_t r = 0; r < outer; ++r) out[r] = T(0);
      } else if (outer == 1) {
        out[0] = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(data, inner).sum();
      } else {
        Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(out, outer) =
            Eigen::Map<const Matrix>(data, outer, inner).rowwise().sum();
      }
      return;
    }
    EMBER_CHECK(inner > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.");
    extreme_rows<T>(op == ReduceOp::Max, data, outer, inner, values.defined() ? values.data_ptr<T>() : nullptr,
                    indices.defined() ? indices.data_ptr<int64_t>() : nullptr);
  });
}

void scatter_rows(const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer, int64_t size,
                  int64_t inner) {
  const int64_t* where = indices.data_ptr<int64_t>();
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = values.data_ptr<T>();
    T* data = out.data_ptr<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) data[(o * size + where[o * inner + i]) * inner + i] = in[o * inner + i];
  });
}

}  // namespace ember::kernels::cpu
