// Why this benchmark: what packed weights (kernels/packed_weights.h) buy a Linear layer run again
// and again with the same weight (an inference server), on this CPU. It times the layer's forward
// under inference_mode with packing off, with the default policy (pack into blocked layouts only)
// and with packing into any layout oneDNN prefers over the weight's own, interleaved, and prints
// each one's median and fastest time (on a shared machine the fastest sample is the least
// disturbed) and how many packed copies it made while timed (0: each layer packs before timing). On a CPU whose oneDNN
// prefers a blocked layout (AVX-512) the default packs; on an AVX2 CPU oneDNN prefers plain row-major weights, the
// default packs nothing, and the last column shows what packing into that layout would cost.
#include <cstdio>
#include <thread>
#include <vector>

#include "ember.h"
#include "harness.h"
#include "kernels/packed_weights.h"

namespace {

using ember::kernels::cpu::WeightPacking;

struct Size {
  int64_t batch, in, out;
};

void measure_size(int threads, const Size& size) {
  ember::manual_seed(0);
  const ember::Tensor x = ember::randn({size.batch, size.in});
  const std::vector<std::pair<const char*, WeightPacking>> policies = {
      {"off", WeightPacking::Off},
      {"blocked only (default)", WeightPacking::IntoBlockedLayouts},
      {"any other layout", WeightPacking::IntoAnyOtherLayout}};

  const WeightPacking before = ember::kernels::cpu::weight_packing();
  std::vector<float> reference;
  std::vector<bench::Case> cases;
  std::vector<int64_t> packings(policies.size(), 0);
  // One layer per policy, all with the same weights: a weight's packed copy outlives a switch of
  // policy, and the rounds switch policies after every sample.
  std::vector<ember::nn::Linear> layers;
  for (size_t p = 0; p < policies.size(); ++p) {
    ember::manual_seed(1);
    layers.emplace_back(size.in, size.out);
  }
  for (size_t p = 0; p < policies.size(); ++p) {
    const WeightPacking policy = policies[p].second;
    ember::nn::Linear& layer = layers[p];
    ember::kernels::cpu::set_weight_packing(policy);
    ember::InferenceMode inference;
    layer(x);
    const std::vector<float> values = layer(x).to_vector<float>();  // the second use: packed if it applies
    if (reference.empty()) reference = values;
    else bench::check_same_values(policies[p].first, values, reference, 1e-5, 1e-4);
    cases.push_back({policies[p].first, [&layer, &x, &packings, policy, p](int64_t calls) {
                       ember::kernels::cpu::set_weight_packing(policy);
                       ember::InferenceMode inference;
                       const int64_t start = ember::kernels::cpu::weight_packings();
                       for (int64_t i = 0; i < calls; ++i) bench::keep(layer(x));
                       packings[p] += ember::kernels::cpu::weight_packings() - start;
                     }});
  }
  bench::Settings settings;
  settings.seconds_per_case = 1.0;
  const std::vector<bench::Stats> stats = bench::measure(cases, settings);
  ember::kernels::cpu::set_weight_packing(before);

  const double flop = 2.0 * static_cast<double>(size.batch * size.in * size.out);
  std::printf("%d thread(s), linear %lld -> %lld, batch %lld:\n", threads, static_cast<long long>(size.in),
              static_cast<long long>(size.out), static_cast<long long>(size.batch));
  for (size_t p = 0; p < policies.size(); ++p)
    std::printf(
        "  packing %-24s median %8.3f ms (%6.1f GFLOP/s), fastest %8.3f ms (%6.1f GFLOP/s); %lld repacks timed\n",
        policies[p].first, stats[p].median * 1e3, flop / stats[p].median / 1e9, stats[p].min * 1e3,
        flop / stats[p].min / 1e9, static_cast<long long>(packings[p]));
}

}  // namespace

int main() {
  const int machine_threads = static_cast<int>(std::thread::hardware_concurrency());
  std::printf("packed weights: a Linear forward under inference_mode, the same weight every call\n\n");
  for (int threads : {1, machine_threads}) {
    ember::set_num_threads(threads);
    for (const Size& size : {Size{256, 512, 512}, Size{1024, 1024, 1024}}) measure_size(threads, size);
    if (machine_threads == 1) break;
  }
}
