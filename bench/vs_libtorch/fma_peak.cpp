// Twelve independent chains of fused multiply-adds, as wide as the CPU has: 16 floats with
// AVX-512, 8 with AVX2. An FMA takes 4 cycles and a core starts two per cycle, so 8 chains in
// flight keep both pipes busy; 12 leave margin. The widest width counts: on an AVX-512 CPU, 8-wide
// FMAs read about half the peak (ember's own mm then showed "166% of peak"). The values decay
// towards a fixed point and never overflow or go subnormal. Best of five runs.
#include "fma_peak.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vs_libtorch {

#if defined(__x86_64__)
namespace {

constexpr int kChains = 12;
constexpr long kIterations = 2'000'000;

__attribute__((target("avx2,fma"), noinline)) float fma_chains_8(long iterations) {
  const __m256 scale = _mm256_set1_ps(0.999f), offset = _mm256_set1_ps(0.001f);
  __m256 chain[kChains];
  for (int c = 0; c < kChains; ++c) chain[c] = _mm256_set1_ps(static_cast<float>(c));
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) chain[c] = _mm256_fmadd_ps(chain[c], scale, offset);
  __m256 sum = chain[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, chain[c]);
  return _mm256_cvtss_f32(sum);
}

__attribute__((target("avx512f"), noinline)) float fma_chains_16(long iterations) {
  const __m512 scale = _mm512_set1_ps(0.999f), offset = _mm512_set1_ps(0.001f);
  __m512 chain[kChains];
  for (int c = 0; c < kChains; ++c) chain[c] = _mm512_set1_ps(static_cast<float>(c));
  for (long i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) chain[c] = _mm512_fmadd_ps(chain[c], scale, offset);
  __m512 sum = chain[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, chain[c]);
  return _mm512_reduce_add_ps(sum);
}

}  // namespace

FmaPeak fma_peak_one_thread() {
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!avx512 && (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))) return {};
  const int lanes = avx512 ? 16 : 8;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    volatile float keep = avx512 ? fma_chains_16(kIterations) : fma_chains_8(kIterations);
    (void)keep;
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // `lanes` floats per FMA, 2 FLOPs (multiply and add) each.
  return {kIterations * kChains * lanes * 2 / best, avx512 ? "AVX-512, 16 floats" : "AVX2, 8 floats"};
}
#else
FmaPeak fma_peak_one_thread() { return {}; }
#endif

}  // namespace vs_libtorch
