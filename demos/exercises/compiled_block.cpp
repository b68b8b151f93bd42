// The compile demo's block. See compiled_block.h.
#include "compiled_block.h"

#include <algorithm>

namespace exercises::compiled_block {

using namespace ember;

Block::Block(int64_t features)
    : bias(nn::Parameter(randn({features}) * 0.1)),
      norm_weight(nn::Parameter(ones({features}))),
      norm_bias(nn::Parameter(zeros({features}))) {}

std::vector<Tensor> Block::operator()(const std::vector<Tensor>& x_and_residual) const {
  const Tensor& x = x_and_residual.at(0);
  const Tensor& residual = x_and_residual.at(1);
  const Tensor h = x * sigmoid(x) + bias + residual;
  return {layer_norm(h, {x.size(-1)}, norm_weight, norm_bias, 1e-5)};
}

CompiledFunction Block::compiled() const {
  CompiledFunction compiled([block = *this](const std::vector<Tensor>& inputs) { return block(inputs); },
                            {"x", "residual"});
  compiled.named_constants = [block = *this] {
    return NamedTensors{{"bias", block.bias}, {"norm.weight", block.norm_weight}, {"norm.bias", block.norm_bias}};
  };
  compiled.name = "block";
  return compiled;
}

int64_t bytes_streamed(int64_t rows, int64_t features) { return (3 + 5) * rows * features * int64_t{4}; }

double arithmetic_seconds(const Block& block, int64_t rows, int64_t features) {
  // 32 rows a thread: the six [32, 1024] float tensors a step touches are 768 KiB a core.
  const int64_t slice_rows = 32 * get_num_threads();
  constexpr int kRounds = 7, kStepsPerRound = 32;
  CompiledFunction compiled = block.compiled();  // its own, so that the caller's sees no recompile
  const Tensor x = randn({slice_rows, features}).requires_grad_(true),
               residual = randn({slice_rows, features}).requires_grad_(true), grad = randn({slice_rows, features});
  const std::vector<Tensor> wrt = {x, residual, block.bias, block.norm_weight, block.norm_bias};
  auto step = [&] { autograd::grad(compiled({x, residual}), wrt, {grad}); };
  for (int i = 0; i < 3; ++i) step();  // the capture and the build, then the caches warm
  std::vector<double> per_step;        // seconds, one figure a round
  for (int round = 0; round < kRounds; ++round) {
    profiler::Profiler profile;
    for (int i = 0; i < kStepsPerRound; ++i) step();
    profile.stop();
    const profiler::KeyAverages averages = profile.key_averages();
    double kernel_microseconds = 0;
    for (const profiler::EventAverage& row : averages.rows())
      if (row.key.rfind("cpp_fused_", 0) == 0) kernel_microseconds += row.self_cpu_time_total;
    per_step.push_back(1e-6 * kernel_microseconds / kStepsPerRound);
  }
  std::sort(per_step.begin(), per_step.end());
  return per_step[kRounds / 2] * static_cast<double>(rows) / static_cast<double>(slice_rows);
}

}  // namespace exercises::compiled_block
