// What ember::compile buys, measured side by side in one run (harness.h), on one thread by default:
// - the memory-bound block (demos/exercises/compiled_block.h), forward and backward, eager and
//   compiled, on [4096, 1024] inputs (16 MiB each, far beyond L2), against the time to stream the
//   bytes the block must move once at the bandwidth measured here (a vectorised a + b loop);
// - the chapter's kind of network (an MLP 512-1024-1024-10, batch 256), forward and backward, eager
//   and compiled: its products dominate, so compiling it should cost nothing.
// Run: build/bench/bench_compile [threads]   (default 1; the stream runs on as many)
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "ember.h"
#include "exercises/compiled_block.h"
#include "harness.h"

namespace {

using namespace ember;

// Gradients of `outputs` (seeded with `grad`) with respect to `inputs`: one training step's backward
// without accumulating into .grad, so that eager and compiled do the same work.
std::vector<Tensor> forward_backward(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& f,
                                     const std::vector<Tensor>& arguments, const Tensor& grad,
                                     const std::vector<Tensor>& wrt) {
  return autograd::grad(f(arguments), wrt, {grad});
}

std::vector<float> flat(const std::vector<Tensor>& tensors) {
  std::vector<float> values;
  for (const Tensor& t : tensors)
    for (float v : t.to_vector<float>()) values.push_back(v);
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  set_num_threads(threads);
  manual_seed(0);
  std::printf("ember::compile, %d thread(s)\n", threads);

  // The block.
  const int64_t rows = 4096, features = 1024;
  exercises::compiled_block::Block block(features);
  CompiledFunction compiled = block.compiled();
  const Tensor x = randn({rows, features}).requires_grad_(true),
               residual = randn({rows, features}).requires_grad_(true);
  const Tensor g = randn({rows, features});
  const std::vector<Tensor> wrt = {x, residual, block.bias, block.norm_weight, block.norm_bias};
  auto eager_block = [&](const std::vector<Tensor>& in) { return block(in); };
  auto compiled_block = [&](const std::vector<Tensor>& in) { return compiled(in); };
  compiled_block({x, residual});  // the capture and the build
  // (The parameters' gradients sum 4096 rows: eager adds them in float, the kernel in double.)
  bench::check_same_values("block: forward and gradients",
                           flat(forward_backward(compiled_block, {x, residual}, g, wrt)),
                           flat(forward_backward(eager_block, {x, residual}, g, wrt)), 1e-3, 1e-3);

  // The bandwidth: out = a + b over 3 x 16 MiB, in a loop the compiler vectorises. On this VM,
  // buffers a process allocates early streamed 15-25% slower than later ones, whoever allocated
  // them; these come after the block's tensors, the faster and so the stricter measure.
  std::vector<float> a(rows * features, 1.0f), b(rows * features, 2.0f), out(rows * features);
  // With as many threads as the block has, each adding its own part, so that the ratio at 2 threads
  // compares with 2 threads' bandwidth.
  auto add_part = [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j) out[j] = a[j] + b[j];
  };
  auto stream_once = [&] {
    std::vector<std::thread> helpers;
    const size_t part = out.size() / static_cast<size_t>(threads);
    for (int t = 1; t < threads; ++t)
      helpers.emplace_back(add_part, t * part, t + 1 == threads ? out.size() : (t + 1) * part);
    add_part(0, part);
    for (std::thread& helper : helpers) helper.join();
  };
  const std::vector<bench::Case> cases = {
      {"block forward+backward, eager",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(forward_backward(eager_block, {x, residual}, g, wrt));
       }},
      {"block forward+backward, compiled",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(forward_backward(compiled_block, {x, residual}, g, wrt));
       }},
      {"stream out = a + b (48 MiB)",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) {
           stream_once();
           bench::keep(out);
         }
       }},
  };
  // Every call starts with its data in memory: this VM's L3 cache (480 MiB) would otherwise hold
  // the stream's 48 MiB between its calls, and the block's between a case and the next, and the
  // bandwidth measured would be a mix of the cache's and the memory's.
  bench::Settings from_memory;
  from_memory.min_sample_seconds = 0;  // one call a sample
  from_memory.from_memory = true;
  const std::vector<bench::Stats> stats = bench::measure(cases, from_memory);
  const double bandwidth = 3.0 * 4 * out.size() / stats[2].median;
  const double stream = exercises::compiled_block::bytes_streamed(rows, features) / bandwidth;
  std::printf("block [%lld, %lld], forward+backward (median of %d):\n", static_cast<long long>(rows),
              static_cast<long long>(features), stats[0].samples);
  std::printf("  eager     %8.2f ms\n  compiled  %8.2f ms   %.2fx faster\n", 1e3 * stats[0].median,
              1e3 * stats[1].median, stats[0].median / stats[1].median);
  std::printf("  streaming its %lld MiB once at %.1f GB/s: %.2f ms; compiled / stream = %.2f\n",
              static_cast<long long>(exercises::compiled_block::bytes_streamed(rows, features) >> 20), bandwidth / 1e9,
              1e3 * stream, stats[1].median / stream);
  std::printf("  %s\n", bench::reliability(stats[1]).c_str());
  // What the compiled block cannot go below on this core, memory or not.
  const double arithmetic = exercises::compiled_block::arithmetic_seconds(block, rows, features);
  std::printf("  its arithmetic alone (the kernels on slices of 32 rows a thread, from the cache): %.2f ms = %.2f x "
              "the stream\n",
              1e3 * arithmetic, arithmetic / stream);

  // The chapter's kind of network.
  nn::Sequential net{nn::Linear(512, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 10)};
  CompiledFunction compiled_net = compile(net);
  const Tensor batch = randn({256, 512}), net_grad = randn({256, 10});
  const std::vector<Tensor> parameters = net->parameters();
  auto eager_net = [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{net->forward(in[0])}; };
  auto compiled_net_call = [&](const std::vector<Tensor>& in) { return compiled_net(in); };
  compiled_net_call({batch});
  bench::check_same_values("network: gradients",
                           flat(forward_backward(compiled_net_call, {batch}, net_grad, parameters)),
                           flat(forward_backward(eager_net, {batch}, net_grad, parameters)), 1e-5, 1e-6);
  const std::vector<bench::Stats> net_stats = bench::measure({
      {"network forward+backward, eager",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(forward_backward(eager_net, {batch}, net_grad, parameters));
       }},
      {"network forward+backward, compiled",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i)
           bench::keep(forward_backward(compiled_net_call, {batch}, net_grad, parameters));
       }},
  });
  std::printf("MLP 512-1024-1024-10, batch 256, forward+backward:\n  eager     %8.2f ms\n  compiled  %8.2f ms   "
              "compiled / eager = %.3f\n  %s\n",
              1e3 * net_stats[0].median, 1e3 * net_stats[1].median, net_stats[1].median / net_stats[0].median,
              bench::reliability(net_stats[1]).c_str());
  std::printf("%s", compiled_net.explain().c_str());
}
