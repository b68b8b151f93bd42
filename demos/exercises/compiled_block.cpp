// The compile demo's block. See compiled_block.h.
#include "compiled_block.h"

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

}  // namespace exercises::compiled_block
