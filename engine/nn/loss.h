// The loss modules, as torch/nn/modules/loss.py and libtorch's nn/modules/loss.h have them: a module
// per loss function, holding its options, built once and called like a layer with the input and
// the target (`nn::MSELoss loss_fn; loss_fn(prediction, target)`). They hold no parameters.
#pragma once
#include "module.h"

namespace ember::nn {

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(Reduction reduction = Reduction::Mean) : reduction_(reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target) { return mse_loss(input, target, reduction_); }

 private:
  Reduction reduction_;
};
TORCH_MODULE(MSELoss);

// NLLLoss and CrossEntropyLoss: a loss of class-index targets, with its reduction and the class
// whose targets it ignores.
template <Tensor (*loss)(const Tensor&, const Tensor&, Reduction, int64_t)>
class ClassIndexLossImpl : public Module {
 public:
  explicit ClassIndexLossImpl(Reduction reduction = Reduction::Mean, int64_t ignore_index = -100)
      : reduction_(reduction),
        ignore_index_(ignore_index) {}
  Tensor forward(const Tensor& input, const Tensor& target) { return loss(input, target, reduction_, ignore_index_); }

 private:
  Reduction reduction_;
  int64_t ignore_index_;
};

class NLLLossImpl : public ClassIndexLossImpl<nll_loss> {  // input: log-probabilities
 public:
  using ClassIndexLossImpl::ClassIndexLossImpl;
};
TORCH_MODULE(NLLLoss);

class CrossEntropyLossImpl : public ClassIndexLossImpl<cross_entropy> {  // input: scores
 public:
  using ClassIndexLossImpl::ClassIndexLossImpl;
};
TORCH_MODULE(CrossEntropyLoss);

}  // namespace ember::nn
