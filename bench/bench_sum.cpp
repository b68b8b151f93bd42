// What a float32 sum costs in PyTorch's order of additions (kernels/cascade_sum.h): time per call
// and bytes read per second, for a whole tensor, for rows (a sum over the last dim) and for
// columns (over the first dim, a bias's gradient), from one vector's worth of elements to 4 MiB.
// Each case is checked first against a sum in double (a fast wrong answer is no figure), then all
// are measured side by side in interleaved rounds (harness.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ember.h"
#include "harness.h"

namespace {

using ember::Tensor;

struct SumCase {
  std::string name;
  ember::Dims sizes;
  std::vector<int64_t> dims;  // empty: all elements
};

Tensor summed(const Tensor& x, const SumCase& c) {
  return c.dims.empty() ? ember::sum(x) : ember::sum(x, ember::Dims(c.dims), false);
}

// The sum of every element in double, which the float32 result must be close to.
void check_close_to_double(const SumCase& c, const Tensor& x) {
  double exact = 0;
  for (float v : x.to_vector<float>()) exact += v;
  double total = 0;
  for (float v : summed(x, c).to_vector<float>()) total += v;
  if (std::fabs(total - exact) > 1e-3 * (1 + std::fabs(exact))) {
    std::printf("%s: sum %.9g, but %.9g in double\n", c.name.c_str(), total, exact);
    std::exit(1);
  }
}

}  // namespace

int main() {
  ember::manual_seed(0);
  const std::vector<SumCase> sums = {
      {"sum of [8]", {8}, {}},
      {"sum of [1000]", {1000}, {}},
      {"sum of [1048576]", {1048576}, {}},
      {"[256, 512].sum(1)", {256, 512}, {1}},
      {"[256, 512].sum(0)", {256, 512}, {0}},
      {"[4096, 20].sum(1)", {4096, 20}, {1}},
      {"[20, 4096].sum(0)", {20, 4096}, {0}},
      {"[1024, 1024].sum(0)", {1024, 1024}, {0}},
  };
  std::vector<Tensor> inputs;
  std::vector<bench::Case> cases;
  for (const SumCase& c : sums) inputs.push_back(ember::randn(c.sizes));
  for (size_t i = 0; i < sums.size(); ++i) {
    check_close_to_double(sums[i], inputs[i]);
    cases.push_back({sums[i].name, [&, i](int64_t calls) {
                       for (int64_t k = 0; k < calls; ++k) bench::keep(summed(inputs[i], sums[i]));
                     }});
  }
  bench::Settings settings;
  settings.min_sample_seconds = 0.005;
  settings.seconds_per_case = 1.0;
  const std::vector<bench::Stats> stats = bench::measure(cases, settings);
  std::printf("\nfloat32 sums in PyTorch's order (median [p10 - p90] of the samples)\n");
  std::printf("%-22s %12s %10s   %s\n", "case", "us per call", "GB/s", "spread");
  for (size_t i = 0; i < sums.size(); ++i) {
    const double bytes = 4.0 * static_cast<double>(inputs[i].numel());
    std::printf("%-22s %12.3f %10.2f   [%.3f - %.3f] %s\n", sums[i].name.c_str(), stats[i].median * 1e6,
                bytes / stats[i].median * 1e-9, stats[i].p10 * 1e6, stats[i].p90 * 1e6,
                bench::reliability(stats[i]).c_str());
  }
}
