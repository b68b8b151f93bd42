// Where Eigen's vectorised exp and log are accurate, and a pass that recomputes the other elements
// with libm. Why: Eigen's packet functions are fast and accurate to a few units in the last place
// (ULPs) for inputs whose results are normal numbers, but wrong at the edges of that range, where
// PyTorch's vectorised functions (Sleef's) and libm are right: its log clamps a subnormal input to
// the smallest normal (log(1e-40f) gave -87.34, not -92.10), its float64 exp gives 5.6e-309 for
// -inf and everything below -708.4 (not a subnormal or 0), and its AVX-512 float exp flushes
// results below the smallest normal to 0 and overflows to inf from 88.38 (exp(88.72f) is 3.4e38).
// (pow is not Eigen's but PyTorch's own, bit for bit: sleef_pow.h.) So the kernels run Eigen on
// the whole array and then recompute, one element at a time with the scalar function, the rare
// inputs outside the accurate range. The check is a vectorised compare per element (exp of 2^20
// floats 15-30% slower, a 1-element exp no slower); the scalar call is paid only where an input
// lies outside.
//
// The accuracy that remains, measured against libm over millions of inputs and stated per function
// by tests/test_vectorised_math.cpp: exp 5 ULPs for float32 (Eigen's AVX-512 form; 1 with AVX2)
// and 2 for float64, log 1.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "eigen.h"

namespace ember::kernels {

// Inputs whose exp Eigen computes to within its stated ULPs: all but those far enough out that
// exp(x) is not a normal number (float32's normal results lie in about [-87.3, 88.7], float64's in
// [-708.4, 709.8]; the limits below keep a margin). NaN gives NaN and counts as accurate.
template <typename T>
bool exp_is_accurate(T x) {
  constexpr T lowest = sizeof(T) == 4 ? T(-87) : T(-708), highest = sizeof(T) == 4 ? T(88) : T(709);
  return !((x < lowest) | (x > highest));
}

// Inputs whose log Eigen computes to within 1 ULP: all but the positive subnormals.
template <typename T>
bool log_is_accurate(T x) {
  return !((x > T(0)) & (x < std::numeric_limits<T>::min()));
}

// out[i] = exact(in[i]) wherever accurate(in[i], out[i]) is false: the elements Eigen got wrong,
// told by their input (or by their result), done again. `out` must not alias `in`: the
// inputs are read after Eigen has written the outputs. The elements are first checked by a loop
// without branches, which vectorises; only when one is found are they looked at one by one.
template <typename T, typename Accurate, typename Exact>
void recompute_edges(T* out, const T* in, int64_t n, Accurate accurate, Exact exact) {
  int outside = 0;  // an or of 32-bit flags: the widest vectors, and no widening to a 64-bit count
  for (int64_t i = 0; i < n; ++i) outside |= !accurate(in[i], out[i]);
  if (outside == 0) [[likely]]
    return;
  for (int64_t i = 0; i < n; ++i)
    if (!accurate(in[i], out[i])) out[i] = exact(in[i]);
}

// Fewer elements than one of Eigen's vectors holds are computed by the scalar function alone: Eigen
// computes them with it anyway, and a tiny op then pays for no check.
template <typename T>
inline constexpr int64_t kScalarBelow = Eigen::internal::packet_traits<T>::size;

// out = f(in) by `vectorised` (Eigen's form, over a chunk), then recompute_edges(accurate, exact),
// over consecutive chunks of 4 KiB, so that the edge pass reads a chunk's inputs while they are
// still in the L1 cache: over the whole array at once it was a second pass through memory (exp of
// 2^20 floats took 60% longer). Chunks are whole multiples of 64 bytes, so over a 64-byte aligned
// output Eigen takes the same vector or scalar path for every element as over the whole array.
template <typename T, typename Vectorised, typename Accurate, typename Exact>
void vectorised_exact_at_edges(T* out, const T* in, int64_t n, Vectorised vectorised, Accurate accurate, Exact exact) {
  if (n < kScalarBelow<T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = exact(in[i]);
    return;
  }
  constexpr int64_t kChunk = 4096 / sizeof(T);
  for (int64_t first = 0; first < n; first += kChunk) {
    const int64_t count = n - first < kChunk ? n - first : kChunk;
    vectorised(out + first, in + first, count);
    recompute_edges(out + first, in + first, count, accurate, exact);
  }
}

}  // namespace ember::kernels
