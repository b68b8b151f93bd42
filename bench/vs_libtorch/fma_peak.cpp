// Twelve independent chains of 8-wide fused multiply-adds: an FMA takes 4 cycles and a core
// starts two per cycle, so 8 chains in flight keep both pipes busy; 12 leave margin. The values
// decay towards a fixed point and never overflow or go subnormal. Best of five runs.
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

__attribute__((target("avx2,fma"), noinline)) float fma_chains(long iterations) {
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

}  // namespace

double fma_peak_one_thread() {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
  constexpr long kIterations = 2'000'000;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    volatile float keep = fma_chains(kIterations);
    (void)keep;
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return kIterations * kChains * 8 * 2 / best;  // 8 lanes, 2 FLOPs (multiply and add) each
}
#else
double fma_peak_one_thread() { return 0; }
#endif

}  // namespace vs_libtorch
