// Floating-point sums added in the order PyTorch's CPU kernel adds them (ATen's cascade_sum,
// aten/src/ATen/native/cpu/SumKernel.cpp), so that a float32 or float64 sum gives PyTorch's bits.
//
// Why this order: a sum's last bits depend on the order of its additions, and ATen's is neither a
// running sum nor a tree. It keeps a few partial sums side by side (instruction-level parallelism:
// 4 accumulators, each a vector of lanes), and adds them in a cascade: every `level_step` loads,
// the first level of accumulators is added into the second and cleared, every `level_step`
// second-level additions into the third, and so on for 4 levels, so that only sums of similar
// size meet. Its vectors are Vectorized<T>, whose width depends on the ISA ATen runs on: 8 floats
// (4 doubles) with its AVX2 and its default kernels, 16 with its AVX-512 ones. ember always adds in
// the AVX2 order, the one PyTorch 1.13 runs on every machine of this project's kinds unless told
// otherwise (ATEN_CPU_CAPABILITY=avx512), so results do not depend on the machine. The lanes are
// the compiler's vectors (GCC's vector extension), and each entry point below is flattened
// (everything it calls inlined): called from a parallel region, GCC took the calls for cold ones
// and left multi_row_sum and every load a call of its own (a [256, 512] row sum 6 times slower).
//
// Above 32768 elements ATen may share a sum among its threads and add their results; ember adds
// in the order of one thread, as PyTorch does under torch.set_num_threads(1).
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace ember::kernels {

// Vectorized<T>::size() of ATen's AVX2 and default kernels: 32 bytes of lanes.
template <typename T>
inline constexpr int kAtenLanes = 32 / static_cast<int>(sizeof(T));

// One of ATen's vector accumulators: kAtenLanes<T> partial sums side by side in one GCC vector
// (Clang has them too), added lane by lane: one instruction with AVX2 or AVX-512, two with SSE,
// the same bits from every one.
template <typename T>
struct LanesOf {
  typedef T type __attribute__((vector_size(32)));
};
template <typename T>
using Lanes = typename LanesOf<T>::type;

// kAtenLanes<T> consecutive elements (unaligned, as ATen's loadu).
template <typename T>
Lanes<T> load_lanes(const T* data) {
  Lanes<T> v;
  std::memcpy(&v, data, sizeof v);
  return v;
}

// One element from each of kAtenLanes<T> rows, row_stride apart: lane r holds row r's.
template <typename T>
Lanes<T> load_across_rows(const T* data, int64_t row_stride) {
  Lanes<T> v;
  for (int r = 0; r < kAtenLanes<T>; ++r) v[r] = data[r * row_stride];
  return v;
}

// ATen's utils::CeilLog2 (1 for 0, 1 and 2).
inline int64_t ceil_log2(int64_t x) { return x <= 2 ? 1 : std::bit_width(static_cast<uint64_t>(x) - 1); }

// kRows sums side by side, sum k of load(i, k) over i < size, each in ATen's cascade of 4 levels
// (multi_row_sum). Acc is T or Lanes<T>; every accumulator starts at +0.
// (The first level is a variable of its own, which the compiler keeps in registers: indexed by a
// variable level, the array of levels lives in memory.)
template <typename Acc, int kRows, typename Load>
std::array<Acc, kRows> multi_row_sum(int64_t size, Load load) {
  constexpr int kLevels = 4;
  const int64_t level_power = std::max<int64_t>(4, ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t{1} << level_power, level_mask = level_step - 1;
  std::array<Acc, kRows> first{};
  std::array<std::array<Acc, kRows>, kLevels> upper{};  // levels 1 to kLevels - 1 (upper[0] unused)
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int k = 0; k < kRows; ++k) first[k] = first[k] + load(i, k);
    for (int k = 0; k < kRows; ++k) upper[1][k] = upper[1][k] + first[k];
    first = {};
    for (int level = 2; level < kLevels && (i & (level_mask << ((level - 1) * level_power))) == 0; ++level)
      for (int k = 0; k < kRows; ++k) {
        upper[level][k] = upper[level][k] + upper[level - 1][k];
        upper[level - 1][k] = Acc{};
      }
  }
  for (; i < size; ++i)
    for (int k = 0; k < kRows; ++k) first[k] = first[k] + load(i, k);
  for (int level = 1; level < kLevels; ++level)
    for (int k = 0; k < kRows; ++k) first[k] = first[k] + upper[level][k];
  return first;
}

// The sum of load(i) over i < size as ATen's row_sum: the row read as rows of 4 (its ILP factor),
// whose 4 columns are summed side by side, then the leftover loads, then the 4 sums in order.
template <typename Acc, typename Load>
Acc row_sum(int64_t size, Load load) {
  constexpr int kIlp = 4;
  const int64_t size_ilp = size / kIlp;
  std::array<Acc, kIlp> partial =
      multi_row_sum<Acc, kIlp>(size_ilp, [&](int64_t i, int k) { return load(i * kIlp + k); });
  for (int64_t i = size_ilp * kIlp; i < size; ++i) partial[0] = partial[0] + load(i);
  for (int k = 1; k < kIlp; ++k) partial[0] = partial[0] + partial[k];
  return partial[0];
}

// The sum of a contiguous row of n elements, as ATen's vectorized_inner_sum: whole vectors by
// row_sum of Lanes, then the leftover elements one by one, then the lanes in order (row_sum alone
// below one vector). The sum is added to ATen's zero-filled output, which makes a -0 sum +0.
template <typename T>
[[gnu::flatten]] T cascade_sum_row(const T* x, int64_t n) {
  constexpr int kWidth = kAtenLanes<T>;
  if (n < kWidth) return T(0) + row_sum<T>(n, [x](int64_t i) { return x[i]; });
  const int64_t vectors = n / kWidth;
  const Lanes<T> lanes = row_sum<Lanes<T>>(vectors, [x](int64_t i) { return load_lanes(x + i * kWidth); });
  T total = 0;
  for (int64_t i = vectors * kWidth; i < n; ++i) total += x[i];
  for (int l = 0; l < kWidth; ++l) total += lanes[l];
  return T(0) + total;
}

// The sums of kAtenLanes<T> consecutive rows of n < kAtenLanes<T> elements each, one row per lane
// of a vector: each row's additions are row_sum's, as in cascade_sum_row, but side by side, so the
// short chains of additions of many short rows overlap (a [4096, 5] sum took a fifth of the time).
template <typename T>
[[gnu::flatten]] void cascade_sum_short_rows(const T* x, int64_t n, T* out) {
  constexpr int kRows = kAtenLanes<T>;
  const Lanes<T> sums = row_sum<Lanes<T>>(n, [&](int64_t i) { return load_across_rows(x + i, n); });
  for (int r = 0; r < kRows; ++r) out[r] = T(0) + sums[r];
}

// Column sums of a contiguous [rows, columns] matrix, columns [first, last), as ATen sums over a
// leading dim (vectorized_outer_sum, or scalar_outer_sum under one vector of columns): blocks of 4
// vectors of columns summed side by side down the rows, then single vectors of columns by
// row_sum, then single columns. `first` must be a multiple of 4 vectors of columns, so that a
// block is the same block however the columns are shared among threads.
template <typename T>
[[gnu::flatten]] void cascade_sum_columns(const T* x, int64_t rows, int64_t columns, int64_t first, int64_t last,
                                          T* out) {
  constexpr int kWidth = kAtenLanes<T>;
  const int block = columns >= kWidth ? 4 * kWidth : 4;  // the columns of one multi_row_sum
  int64_t j = first;
  for (; j + block <= last; j += block) {
    if (columns >= kWidth) {
      const auto sums = multi_row_sum<Lanes<T>, 4>(
          rows, [&](int64_t i, int k) { return load_lanes(x + i * columns + j + k * kWidth); });
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < kWidth; ++l) out[j + k * kWidth + l] = T(0) + sums[k][l];
    } else {
      const auto sums = multi_row_sum<T, 4>(rows, [&](int64_t i, int k) { return x[i * columns + j + k]; });
      for (int k = 0; k < 4; ++k) out[j + k] = T(0) + sums[k];
    }
  }
  if (columns >= kWidth)
    for (; j + kWidth <= last; j += kWidth) {
      const Lanes<T> sums = row_sum<Lanes<T>>(rows, [&](int64_t i) { return load_lanes(x + i * columns + j); });
      for (int l = 0; l < kWidth; ++l) out[j + l] = T(0) + sums[l];
    }
  for (; j < last; ++j) out[j] = T(0) + row_sum<T>(rows, [&](int64_t i) { return x[i * columns + j]; });
}

}  // namespace ember::kernels
