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

class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(Reduction reduction = Reduction::Mean, int64_t ignore_index = -100)
      : reduction_(reduction),
        ignore_index_(ignore_index) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return nll_loss(input, target, reduction_, ignore_index_);
  }

 private:
  Reduction reduction_;
  int64_t ignore_index_;
};
TORCH_MODULE(NLLLoss);

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(Reduction reduction = Reduction::Mean, int64_t ignore_index = -100)
      : reduction_(reduction),
        ignore_index_(ignore_index) {}
  Tensor forward(const Tensor& input, const Tensor& target) {
    return cross_entropy(input, target, reduction_, ignore_index_);
  }

 private:
  Reduction reduction_;
  int64_t ignore_index_;
};
TORCH_MODULE(CrossEntropyLoss);

}  // namespace ember::nn
