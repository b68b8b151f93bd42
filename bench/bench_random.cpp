// Why this benchmark: PyTorch-compatible sampling follows PyTorch's kernels step by step (the
// 16-wide Box-Muller fill with its Cephes-style log/sin/cos for float32), so its speed should be
// in PyTorch's range too. It reports ns per element for 10^6-element rand and randn in float32 and
// float64 (PyTorch 1.13 on this machine, one thread: randn float32 ~4.9 ns, float64 ~25 ns,
// rand float32 ~4.5 ns).
#include <cstdio>
#include <vector>

#include "ember.h"
#include "harness.h"

int main() {
  constexpr int64_t kElements = 1000000;
  std::vector<bench::Case> cases = {
      {"randn float32",
       [](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::randn({kElements}));
       }},
      {"randn float64",
       [](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::randn({kElements}, ember::kFloat64));
       }},
      {"rand float32",
       [](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::rand({kElements}));
       }},
      {"rand float64",
       [](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::rand({kElements}, ember::kFloat64));
       }},
  };
  bench::Settings settings;
  settings.min_sample_seconds = 0.01;
  settings.seconds_per_case = 2.0;
  const std::vector<bench::Stats> stats = bench::measure(cases, settings);
  std::printf("ns per element, sampling 10^6 elements (median [p10 - p90] of %d samples)\n", stats[0].samples);
  for (size_t i = 0; i < cases.size(); ++i)
    std::printf("%-16s %6.2f   [%6.2f - %6.2f]\n", cases[i].name.c_str(), stats[i].median * 1e9 / kElements,
                stats[i].p10 * 1e9 / kElements, stats[i].p90 * 1e9 / kElements);
  return 0;
}
