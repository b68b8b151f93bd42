// The compile demo's block: layer_norm(x * sigmoid(x) + bias + residual), forward and backward.
// Every op in it is memory-bound on its own: eager runs each as a pass over the whole tensor
// (sigmoid, mul, add, add, then layer_norm's passes, and twice as many backward), while the work
// per element is a few FLOPs. ember::compile fuses the chain into one kernel forward and one
// backward, each a single pass over memory with the row in the L1 cache, which is what the
// chapter's advice for a memory-bound hot spot ("fuse it") buys. demos/compile_block.cpp shows the
// profiles, bench/bench_compile.cpp the speed, tests/test_compile.cpp the generated source.
#pragma once
#include <string>
#include <vector>

#include "ember.h"

namespace exercises::compiled_block {

struct Block {
  ember::Tensor bias, norm_weight, norm_bias;
  explicit Block(int64_t features);
  // {x, residual} -> {layer_norm(x * sigmoid(x) + bias + residual)}
  std::vector<ember::Tensor> operator()(const std::vector<ember::Tensor>& x_and_residual) const;
  // The block compiled, its inputs named x and residual, its parameters bias and norm.weight,
  // norm.bias.
  ember::CompiledFunction compiled() const;
};

// The least bytes a forward and backward of the block can move for `rows` x `features` inputs that
// both require grad: forward reads x and residual and writes the output; backward reads the output's
// gradient, x and residual and writes the two inputs' gradients (the per-row statistics and the
// per-feature parameters are negligible).
int64_t bytes_streamed(int64_t rows, int64_t features);

// The compiled block's arithmetic alone, for a forward and backward of `rows` x `features` inputs:
// the generated kernels' own time (their profiler events' self time, the median of 7 rounds) on
// slices of 32 rows a thread, which stay in the cache, scaled to `rows`. Set beside the time
// bytes_streamed takes at memory bandwidth, it says which of the two bounds the kernels on this core.
double arithmetic_seconds(const Block& block, int64_t rows, int64_t features);

}  // namespace exercises::compiled_block
