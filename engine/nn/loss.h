// The loss modules, as torch/nn/modules/loss.py and libtorch's nn/modules/loss.h have them: a module
// per loss function, holding its options (loss_options.h), built once and called like a layer with
// the input and the target (`nn::CrossEntropyLoss loss_fn; loss_fn(logits, classes)`). They hold no
// parameters; a class weight is their buffer "weight", as PyTorch registers it, so that to() moves it
// and state_dict() saves it.
#pragma once
#include "functional.h"
#include "module.h"

namespace ember::nn {

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) { return functional::mse_loss(input, target, options); }

  MSELossOptions options;
};
TORCH_MODULE(MSELoss);

// NLLLoss and CrossEntropyLoss: a loss of class-index targets, with its options and its weight.
template <typename Options, Tensor (*loss)(const Tensor&, const Tensor&, const Options&)>
class ClassIndexLossImpl : public Module {
 public:
  explicit ClassIndexLossImpl(const Options& options = {}) : options(options) {
    if (options.weight().defined()) register_buffer("weight", options.weight());
  }
  // The registered buffer, which to() may have replaced, not the options' tensor.
  Tensor forward(const Tensor& input, const Tensor& target) {
    Options current = options;
    current.weight(options.weight().defined() ? buffer("weight") : Tensor());
    return loss(input, target, current);
  }

  Options options;
};

class NLLLossImpl : public ClassIndexLossImpl<NLLLossOptions, functional::nll_loss> {  // input: log-probabilities
 public:
  using ClassIndexLossImpl::ClassIndexLossImpl;
};
TORCH_MODULE(NLLLoss);

class CrossEntropyLossImpl : public ClassIndexLossImpl<CrossEntropyLossOptions, functional::cross_entropy> {  // scores
 public:
  using ClassIndexLossImpl::ClassIndexLossImpl;
};
TORCH_MODULE(CrossEntropyLoss);

}  // namespace ember::nn
