// Row reductions: floating-point sums in PyTorch's order of additions (cascade_sum.h), integer sums
// with Eigen (exact in any order), and a plain loop for max/min, whose first-index and NaN rules
// are easier to read written out. Many rows are shared among the threads (parallel.h); each row is
// reduced by one thread, so results do not depend on the thread count.
#include "kernel_list.h"

#include "eigen.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cascade_sum.h"
#include "element_math.h"
#include "parallel.h"
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

// Sums of int64 rows are taken as uint64 (the same bits: unsigned sums wrap around, as PyTorch's
// results do, where a signed overflow inside Eigen would be undefined behaviour); Eigen
// vectorises both alike.
template <typename T>
using Summed = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;
template <typename T>
const Summed<T>* as_summed(const T* data) {
  return reinterpret_cast<const Summed<T>*>(data);
}

}  // namespace

void reduce_rows(ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                 const Tensor& indices) {
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = in.data_ptr<T>();
    const int64_t rows_grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(inner, 1));
    if (op == ReduceOp::Sum) {
      T* out = values.data_ptr<T>();
      if constexpr (std::is_floating_point_v<T>) {
        parallel_for(0, outer, rows_grain, [&](int64_t first, int64_t last) {
          int64_t r = first;
          if (inner < kAtenLanes<T>)
            for (; r + kAtenLanes<T> <= last; r += kAtenLanes<T>)
              cascade_sum_short_rows(data + r * inner, inner, out + r);
          for (; r < last; ++r) out[r] = cascade_sum_row(data + r * inner, inner);
        });
      } else {
        using S = Summed<T>;
        using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        if (inner == 0) {
          for (int64_t r = 0; r < outer; ++r) out[r] = T(0);
        } else {
          parallel_for(0, outer, rows_grain, [&](int64_t first, int64_t last) {
            Eigen::Map<Eigen::Matrix<S, Eigen::Dynamic, 1>>(reinterpret_cast<S*>(out + first), last - first) =
                Eigen::Map<const Matrix>(as_summed(data + first * inner), last - first, inner).rowwise().sum();
          });
        }
      }
      return;
    }
    EMBER_CHECK(inner > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.");
    T* out = values.defined() ? values.data_ptr<T>() : nullptr;
    int64_t* where = indices.defined() ? indices.data_ptr<int64_t>() : nullptr;
    parallel_for(0, outer, rows_grain, [&](int64_t first, int64_t last) {
      extreme_rows<T>(op == ReduceOp::Max, data + first * inner, last - first, inner, out ? out + first : nullptr,
                      where ? where + first : nullptr);
    });
  });
}

// Column sums of each batch: floating-point columns in PyTorch's order (cascade_sum.h), shared
// among the threads in whole blocks of 4 of ATen's vectors, so that every column is added in the
// same order on any number of threads; integer columns as a plain running sum per column (exact in
// any order).
void sum_columns(const Tensor& in, int64_t batches, int64_t rows, int64_t columns, const Tensor& sums) {
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = in.data_ptr<T>();
    T* out = sums.data_ptr<T>();
    if constexpr (std::is_floating_point_v<T>) {
      // One column is a contiguous run, which ATen sums as a row (its iterator drops the other dim).
      if (columns == 1) {
        parallel_for(0, batches, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(rows, 1)),
                     [&](int64_t first, int64_t last) {
                       for (int64_t b = first; b < last; ++b) out[b] = cascade_sum_row(data + b * rows, rows);
                     });
        return;
      }
      constexpr int64_t kBlock = 4 * kAtenLanes<T>;
      const int64_t blocks = (columns + kBlock - 1) / kBlock;
      // A column sum is one add per element, about a tenth of a typical element-wise op, so a second
      // thread pays off only from ten grains on ([256, 512] over dim 0 took as long on two threads).
      const int64_t blocks_grain = std::max<int64_t>(1, 10 * kGrainSize / kBlock / std::max<int64_t>(rows, 1));
      // The blocks of all batches in a row, each run of them within one batch summed by one call.
      parallel_for(0, batches * blocks, blocks_grain, [&](int64_t first, int64_t last) {
        for (int64_t k = first; k < last;) {
          const int64_t b = k / blocks, end = std::min(last, (b + 1) * blocks);
          cascade_sum_columns(data + b * rows * columns, rows, columns, (k - b * blocks) * kBlock,
                              std::min(columns, (end - b * blocks) * kBlock), out + b * columns);
          k = end;
        }
      });
    } else {
      const int64_t columns_grain = std::max<int64_t>(1, 10 * kGrainSize / std::max<int64_t>(rows, 1));
      parallel_for(0, batches * columns, columns_grain, [&](int64_t first, int64_t last) {
        for (int64_t k = first; k < last; ++k) {
          const T* column = data + (k / columns) * rows * columns + k % columns;
          T total = 0;
          for (int64_t r = 0; r < rows; ++r) total = plus(total, column[r * columns]);
          out[k] = total;
        }
      });
    }
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
