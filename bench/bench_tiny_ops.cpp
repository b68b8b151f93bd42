// Why this benchmark: on a 1-element tensor the arithmetic is one float add, so the time of `a + b`
// is almost entirely ember's overhead per op: argument checks, type promotion, allocating the
// output tensor and its storage, and (when an input requires grad) recording an autograd node.
// Small models run thousands of such ops per step, so this overhead is what they feel.
// It also measures what InferenceMode buys over NoGradGuard: inference tensors carry no version
// counter and no autograd metadata, so each op should do less bookkeeping. The second part runs a
// real-sized forward (the chapter's `big` network) under both modes, where the matrix products
// dominate and the modes' difference should shrink to noise.
//
// Goals (issues 2 and 3): a + b <= 210 ns with grad off, <= 420 ns with requires_grad on one
// input, and inference_mode <= 0.9x no_grad; issue 42: at most 3 heap allocations for the op that
// records a graph, and 25% less time than 229 ns. libtorch 1.13 C++ on this machine, for reference:
// 530 ns grad off, 510 ns no_grad, 440 ns inference_mode, 1050 ns requires_grad.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <vector>

#include "ember.h"
#include "harness.h"

// Heap allocations counted while `counting` is set: every operator new in the program. A tensor's
// data comes from the counting allocator's block cache (engine/core/cpu_block_cache.h), and its
// TensorImpl, Storage, version counter and autograd node from this thread's recycled blocks
// (engine/core/recycled_blocks.h), which both reuse freed blocks, so in a loop they ask for none.
// What is counted is what still calls malloc per op: a result's autograd data, any vector.
namespace {
bool counting = false;
int64_t allocations = 0;
}  // namespace

void* operator new(std::size_t bytes) {
  if (counting) ++allocations;
  if (void* block = std::malloc(bytes == 0 ? 1 : bytes)) return block;
  throw std::bad_alloc();
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }

namespace {

// operator new calls per call of `run`, over 1000 calls after 100 to warm up.
double allocations_per_call(const std::function<void(int64_t)>& run) {
  run(100);
  allocations = 0;
  counting = true;
  run(1000);
  counting = false;
  return allocations / 1000.0;
}

void print_row(const char* name, const bench::Stats& stats, const char* libtorch, const char* goal) {
  std::printf("%-34s %8.1f   [%6.1f - %6.1f]   %-10s %s\n", name, stats.median * 1e9, stats.p10 * 1e9, stats.p90 * 1e9,
              libtorch, goal);
}

void tiny_add() {
  using ember::Tensor;
  // The inputs of each case are made the way that case's code would make them: plain tensors
  // for "grad off" and no_grad, inference tensors (made inside the mode) for inference_mode.
  Tensor a = ember::full({1}, 1.5, ember::kFloat32), b = ember::full({1}, 2.25, ember::kFloat32);
  Tensor a_requires_grad = ember::full({1}, 1.5, ember::Options(ember::kFloat32).requires_grad());
  Tensor a_inference, b_inference;
  {
    ember::InferenceMode guard;
    a_inference = ember::full({1}, 1.5, ember::kFloat32);
    b_inference = ember::full({1}, 2.25, ember::kFloat32);
  }

  // Every variant must give 3.75 (and the graph variant must record a node).
  const std::vector<float> expected = {3.75f};
  bench::check_same_values("a + b, grad off", (a + b).to_vector<float>(), expected, 0, 0);
  {
    ember::NoGradGuard guard;
    bench::check_same_values("a + b, no_grad", (a + b).to_vector<float>(), expected, 0, 0);
  }
  {
    ember::InferenceMode guard;
    Tensor sum = a_inference + b_inference;
    if (!sum.is_inference()) std::printf("NOTE: a + b under InferenceMode did not give an inference tensor\n");
    bench::check_same_values("a + b, inference_mode", sum.to_vector<float>(), expected, 0, 0);
  }
  Tensor a_accumulator = ember::zeros({1}), a_inference_accumulator;
  {
    ember::InferenceMode guard;
    a_inference_accumulator = ember::zeros({1});
  }
  Tensor with_graph = a_requires_grad + b;
  if (!with_graph.grad_fn()) std::printf("NOTE: a + b with requires_grad recorded no grad_fn\n");
  bench::check_same_values("a + b, requires_grad on a", with_graph.to_vector<float>(), expected, 0, 0);
  with_graph = Tensor();

  std::vector<bench::Case> cases = {
      {"grad off (no input requires grad)",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(a + b);
       }},
      {"no_grad (NoGradGuard)",
       [&](int64_t calls) {
         ember::NoGradGuard guard;
         for (int64_t i = 0; i < calls; ++i) bench::keep(a + b);
       }},
      {"inference_mode (InferenceMode)",
       [&](int64_t calls) {
         ember::InferenceMode guard;
         for (int64_t i = 0; i < calls; ++i) bench::keep(a_inference + b_inference);
       }},
      {"requires_grad on a (records graph)",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(a_requires_grad + b);
       }},
      // In-place ops are where inference tensors save work: no version counter to bump.
      {"a += b, no_grad",
       [&](int64_t calls) {
         ember::NoGradGuard guard;
         for (int64_t i = 0; i < calls; ++i) a_accumulator += b;
       }},
      {"a += b, inference_mode",
       [&](int64_t calls) {
         ember::InferenceMode guard;
         for (int64_t i = 0; i < calls; ++i) a_inference_accumulator += b_inference;
       }},
  };
  bench::Settings settings;
  settings.min_sample_seconds = 0.005;
  settings.seconds_per_case = 1.5;
  std::vector<bench::Stats> stats = bench::measure(cases, settings);

  std::printf("\nns per `a + b` on 1-element float32 tensors (median [p10 - p90] of %d samples)\n", stats[0].samples);
  std::printf("%-34s %8s   %-19s   %-10s %s\n", "case", "ns", "spread", "libtorch", "goal");
  print_row(cases[0].name.c_str(), stats[0], "530", "<= 210");
  print_row(cases[1].name.c_str(), stats[1], "510", "");
  print_row(cases[2].name.c_str(), stats[2], "440", "");
  print_row(cases[3].name.c_str(), stats[3], "1050", "<= 420");
  std::printf("inference_mode / no_grad: %.2f  (goal <= 0.9; libtorch 0.86)\n", stats[2].median / stats[1].median);
  std::printf("\nns per in-place `a += b` (the version bump is what inference tensors skip)\n");
  print_row(cases[4].name.c_str(), stats[4], "", "");
  print_row(cases[5].name.c_str(), stats[5], "", "");
  std::printf("inference_mode / no_grad (in-place): %.2f\n", stats[5].median / stats[4].median);
  std::printf("\nheap allocations (operator new) per call (goal: <= 3 when it records a graph)\n");
  for (const bench::Case& c : cases) std::printf("%-34s %8.2f\n", c.name.c_str(), allocations_per_call(c.run));
}

void big_forward() {
  using ember::Tensor;
  namespace nn = ember::nn;
  ember::manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};  // braces: left-to-right init
  Tensor input = ember::randn({256, 512});

  std::vector<float> no_grad_result, inference_result;
  {
    ember::NoGradGuard guard;
    no_grad_result = big(input).to_vector<float>();
  }
  {
    ember::InferenceMode guard;
    inference_result = big(input).to_vector<float>();
  }
  bench::check_same_values("big(x), no_grad vs inference_mode", inference_result, no_grad_result, 0, 0);

  std::vector<bench::Case> cases = {
      {"no_grad",
       [&](int64_t calls) {
         ember::NoGradGuard guard;
         for (int64_t i = 0; i < calls; ++i) bench::keep(big(input));
       }},
      {"inference_mode",
       [&](int64_t calls) {
         ember::InferenceMode guard;
         for (int64_t i = 0; i < calls; ++i) bench::keep(big(input));
       }},
  };
  bench::Settings settings;
  settings.warmup_seconds = 0.3;
  settings.min_sample_seconds = 0.01;
  settings.seconds_per_case = 3.0;
  std::vector<bench::Stats> stats = bench::measure(cases, settings);

  std::printf("\nms per forward of big = Sequential(Linear(512,512), ReLU(), Linear(512,512)) on 256x512,\n");
  std::printf("%d thread(s) (median [p10 - p90] of %d samples)\n", ember::get_num_threads(), stats[0].samples);
  for (size_t i = 0; i < cases.size(); ++i)
    std::printf("%-34s %8.3f   [%6.3f - %6.3f]\n", cases[i].name.c_str(), stats[i].median * 1e3, stats[i].p10 * 1e3,
                stats[i].p90 * 1e3);
  std::printf("inference_mode / no_grad: %.3f\n", stats[1].median / stats[0].median);
}

}  // namespace

int main() {
  std::printf("ember tiny-op and inference-mode benchmark\n\n");
  tiny_add();
  std::printf("\n");
  big_forward();
  return 0;
}
