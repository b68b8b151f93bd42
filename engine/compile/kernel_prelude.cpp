// The prelude every generated file includes, written beside it as ember_kernel_prelude.h: the element
// functions a loop body calls, written without branches or calls so that `#pragma omp simd`
// vectorises them (nothing in a loop may call libm's scalar code), and the streaming stores that
// write an output too large to stay in the cache. Its text is part of the on-disk cache's key
// (system_compiler.cpp), so a change here rebuilds every kernel.
#include "codegen.h"

namespace ember::compiler {

const std::string& prelude() {
  static const std::string text = R"(// ember_kernel_prelude.h: the element functions of ember's generated kernels.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <omp.h>
#include <unistd.h>
#include <vector>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

// exp(x) as Cephes computes it (the method of PyTorch's avx_mathfun.h): x = n ln2 + r with
// |r| <= ln2 / 2, a degree-6 polynomial for exp(r) in fused multiply-adds, and 2^n applied in two
// halves so that results below the smallest normal float come out as subnormals or 0 and results
// above the largest as inf. n is rounded by adding 1.5 * 2^23 (std::floor would stop GCC's
// vectoriser) and read back from that sum's low bits, so that a NaN, whose result is NaN, is
// never converted to an integer. x is clamped below only and n above, as an integer: three
// instructions where GCC made two NaN-keeping float clamps ten compares, blends and mask operations
// (the demo block's kernels ran 5% faster on a Zen 4). Past n = 254 (x > 176, inf, NaN) r > 0, so
// y >= 1 and y * 2^254 is inf, or NaN for a NaN: the results are those of a clamp of x to
// [-104, 89], bit for bit over all 2^32 floats.
static inline float ember_exp(float x) {
  x = x < -104.0f ? -104.0f : x;  // a NaN stays NaN
  const float shifted = std::fma(x, 1.44269504088896341f, 12582912.0f);  // 1.5 * 2^23 + n
  uint32_t shifted_bits;
  std::memcpy(&shifted_bits, &shifted, sizeof shifted_bits);
  int32_t whole = static_cast<int32_t>(shifted_bits - 0x4B400000u);  // n
  whole = whole < 254 ? whole : 254;
  const float n = static_cast<float>(whole);
  float r = std::fma(n, -0.693359375f, x);  // x - n ln2, with ln2 in two parts
  r = std::fma(n, 2.12194440e-4f, r);
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  const float y = std::fma(p, r * r, r) + 1.0f;
  const int32_t half = whole >> 1, rest = whole - half;
  const uint32_t half_bits = static_cast<uint32_t>(half + 127) << 23;
  const uint32_t rest_bits = static_cast<uint32_t>(rest + 127) << 23;
  float scale_half, scale_rest;
  std::memcpy(&scale_half, &half_bits, sizeof scale_half);
  std::memcpy(&scale_rest, &rest_bits, sizeof scale_rest);
  return y * scale_half * scale_rest;
}
static inline float ember_sigmoid(float x) { return 1.0f / (1.0f + ember_exp(-x)); }
static inline float ember_relu(float x) { return x < 0.0f ? 0.0f : x; }  // NaN stays NaN

// Whether `bytes` per thread are more than a core's caches keep for the next op: its L2, and at
// least 2 MiB, since a core with a small L2 (Zen 3's 512 KiB) has a share of a large L3 behind it.
// A larger output leaves the caches before anything reads it, so a kernel writes it with streaming
// stores (a plain store first reads the line it writes into the cache, a streaming store writes
// whole lines to memory), and prefetches larger inputs from memory a row ahead.
static inline bool ember_beyond_caches(int64_t bytes) {
#if defined(_SC_LEVEL2_CACHE_SIZE)
  static const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#else
  static const long l2 = 0;
#endif
  return bytes > (l2 > (2L << 20) ? l2 : 2L << 20);
}

// Asks for the cache lines of n floats at p to come into the L2 cache, ahead of the loop that reads them.
static inline void ember_prefetch(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) __builtin_prefetch(p + i, 0, 2);
}

// Copies n floats from src to dst, with streaming stores from dst's first aligned address on.
static inline void ember_stream(float* dst, const float* src, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i < n && reinterpret_cast<uintptr_t>(dst + i) % 64 != 0; ++i) dst[i] = src[i];
  for (; i + 16 <= n; i += 16) _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
#elif defined(__AVX__)
  for (; i < n && reinterpret_cast<uintptr_t>(dst + i) % 32 != 0; ++i) dst[i] = src[i];
  for (; i + 8 <= n; i += 8) _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
#endif
  for (; i < n; ++i) dst[i] = src[i];
}

// Streaming stores are not ordered with other stores: a thread fences its own before another
// thread may read them.
static inline void ember_stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
)";
  return text;
}

}  // namespace ember::compiler
