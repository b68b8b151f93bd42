// Row reductions on the GPU: one block per row of the contiguous [outer, inner] input, each
// thread folding a strided share of the row, then block_reduce (device_loops.cuh) across threads.
// max/min keep the first extreme index and let NaN win, as PyTorch (and kernels/reduce.cpp) do.
#include <cmath>

#include "device_loops.cuh"
#include "kernels/element_math.h"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {
namespace {

template <typename T>
__device__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return isnan(v);
  else return false;
}

template <typename T>
__global__ void sum_rows_kernel(const T* in, int64_t inner, T* values) {
  const T* row = in + blockIdx.x * inner;
  T sum = T(0);
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) sum = plus(sum, row[i]);  // int64 wraps, as on the CPU
  sum = block_reduce(sum, [](T a, T b) { return plus(a, b); });
  if (threadIdx.x == 0) values[blockIdx.x] = sum;
}

template <typename T>
struct Extreme {
  T value;
  int64_t index;  // -1: this thread saw no element
};

// The better of two candidates; `left` came from earlier elements when both are equal.
template <typename T>
__device__ Extreme<T> better(Extreme<T> left, Extreme<T> right, bool want_max) {
  if (right.index < 0) return left;
  if (left.index < 0) return right;
  const bool left_nan = is_nan(left.value), right_nan = is_nan(right.value);
  if (left_nan || right_nan) {
    if (left_nan && right_nan) return left.index <= right.index ? left : right;
    return left_nan ? left : right;
  }
  if (left.value == right.value) return left.index <= right.index ? left : right;
  return (want_max ? right.value > left.value : right.value < left.value) ? right : left;
}

template <typename T>
__global__ void extreme_rows_kernel(bool want_max, const T* in, int64_t inner, T* values, int64_t* indices) {
  const T* row = in + blockIdx.x * inner;
  Extreme<T> best{T(0), -1};
  for (int64_t i = threadIdx.x; i < inner; i += blockDim.x) best = better(best, Extreme<T>{row[i], i}, want_max);
  best = block_reduce(best, [want_max](Extreme<T> a, Extreme<T> b) { return better(a, b, want_max); });
  if (threadIdx.x == 0) {
    if (values) values[blockIdx.x] = best.value;
    if (indices) indices[blockIdx.x] = best.index;
  }
}

}  // namespace

void reduce_rows(ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                 const Tensor& indices) {
  if (outer == 0) return;
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = in.data_ptr<T>();
    if (op == ReduceOp::Sum) {
      sum_rows_kernel<T><<<static_cast<unsigned>(outer), kThreadsPerBlock>>>(data, inner, values.data_ptr<T>());
      check_launch("sum");
      return;
    }
    EMBER_CHECK(inner > 0, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.");
    extreme_rows_kernel<T><<<static_cast<unsigned>(outer), kThreadsPerBlock>>>(
        op == ReduceOp::Max, data, inner, values.defined() ? values.data_ptr<T>() : nullptr,
        indices.defined() ? indices.data_ptr<int64_t>() : nullptr);
    check_launch(op == ReduceOp::Max ? "max" : "min");
  });
}

// One thread per column of a batch walks down the rows: neighbouring threads read neighbouring
// addresses, so every row is read in coalesced pieces.
template <typename T>
__global__ void sum_columns_kernel(const T* in, int64_t batches, int64_t rows, int64_t columns, T* sums) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < batches * columns;
       k += int64_t(blockDim.x) * gridDim.x) {
    const T* column = in + (k / columns) * rows * columns + k % columns;
    T total = T(0);
    for (int64_t r = 0; r < rows; ++r) total = plus(total, column[r * columns]);
    sums[k] = total;
  }
}

template <typename T>
void scatter_rows_as(const Tensor& out, const Tensor& values, const int64_t* where, int64_t outer, int64_t size,
                     int64_t inner) {
  const T* in = static_cast<const T*>(values.raw_data());
  T* data = static_cast<T*>(out.raw_data());
  launch_elements(
      outer * inner,
      [=] __device__(int64_t k) {
        const int64_t o = k / inner, i = k % inner;
        data[(o * size + where[k]) * inner + i] = in[k];
      },
      "scatter_rows");
}

void sum_columns(const Tensor& in, int64_t batches, int64_t rows, int64_t columns, const Tensor& sums) {
  if (batches * columns == 0) return;
  const unsigned blocks =
      static_cast<unsigned>(std::min<int64_t>((batches * columns + kThreadsPerBlock - 1) / kThreadsPerBlock, 65536));
  visit_compute_dtype(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    sum_columns_kernel<T><<<blocks, kThreadsPerBlock>>>(in.data_ptr<T>(), batches, rows, columns, sums.data_ptr<T>());
  });
  check_launch("sum_columns");
}

void scatter_rows(const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer, int64_t size,
                  int64_t inner) {
  const int64_t* where = indices.data_ptr<int64_t>();
  visit_device_dtype(out.dtype(),
                     [&](auto tag) { scatter_rows_as<decltype(tag)>(out, values, where, outer, size, inner); });
}

}  // namespace ember::kernels::cuda
