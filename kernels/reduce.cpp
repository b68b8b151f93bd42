// Row reductions with Eigen (sums use Eigen's vectorised tree reduction) and a plain loop for
// max/min, whose first-index and NaN rules are easier to read written out. Many rows are shared
// among the threads (parallel.h); each row is reduced by one thread, so results do not depend on
// the thread count.
#include "kernel_list.h"

#include "eigen.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

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
      using S = Summed<T>;
      using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      if (inner == 0) {
        for (int64_t r = 0; r < outer; ++r) out[r] = T(0);
      } else if (outer == 1) {
        out[0] = static_cast<T>(Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>(as_summed(data), inner).sum());
      } else {
        parallel_for(0, outer, rows_grain, [&](int64_t first, int64_t last) {
          Eigen::Map<Eigen::Matrix<S, Eigen::Dynamic, 1>>(reinterpret_cast<S*>(out + first), last - first) =
              Eigen::Map<const Matrix>(as_summed(data + first * inner), last - first, inner).rowwise().sum();
        });
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

// Columns are summed in tiles of kTileColumns (one tile's partial sums stay in registers and L1)
// and, down each column, in chunks of kChunkRows rows whose sums are then added: two levels of
// summation, so the rounding error grows with rows / kChunkRows + kChunkRows, not with rows.
void sum_columns(const Tensor& in, int64_t rows, int64_t columns, const Tensor& sums) {
  constexpr int64_t kTileColumns = 256, kChunkRows = 128;
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = in.data_ptr<T>();
    T* out = sums.data_ptr<T>();
    const int64_t tiles = (columns + kTileColumns - 1) / kTileColumns;
    // A column sum is one vectorised add per element, about a tenth of a typical element-wise op,
    // so a second thread pays off only from ten grains on: a [256, 512] sum over dim 0 took 10.6 us
    // on one thread and 10.8 us on two (the wake-up costs what the split saves).
    // (Divided in two steps, the same floor, so that no huge row count overflows rows * kTileColumns.)
    const int64_t tiles_grain = std::max<int64_t>(1, 10 * kGrainSize / kTileColumns / std::max<int64_t>(rows, 1));
    parallel_for(0, tiles, tiles_grain, [&](int64_t first_tile, int64_t last_tile) {
      for (int64_t tile = first_tile; tile < last_tile; ++tile) {
        const int64_t first = tile * kTileColumns, width = std::min(kTileColumns, columns - first);
        T total[kTileColumns] = {}, chunk[kTileColumns];
        for (int64_t r0 = 0; r0 < rows; r0 += kChunkRows) {
          std::fill_n(chunk, width, T(0));
          for (int64_t r = r0; r < std::min(rows, r0 + kChunkRows); ++r) {
            const T* row = data + r * columns + first;
            for (int64_t j = 0; j < width; ++j) chunk[j] = plus(chunk[j], row[j]);
          }
          for (int64_t j = 0; j < width; ++j) total[j] = plus(total[j], chunk[j]);
        }
        std::copy_n(total, width, out + first);
      }
    });
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
