// optim::SGD, as torch.optim.SGD: for each parameter p with gradient g,
//   g = g + weight_decay * p;  buf = momentum * buf + (1 - dampening) * g (buf = g on the first
//   step);  g = nesterov ? g + momentum * buf : buf;  p -= lr * g.
// Updates happen in place under no_grad, so each step bumps every parameter's version counter.
#pragma once
#include <vector>

#include "optimizer.h"

namespace ember::optim {

// SGDOptions(0.01).momentum(0.9): the learning rate first, as libtorch's (and torch's, which requires it).
struct SGDOptions {
  SGDOptions(double lr) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> parameters, SGDOptions options);
  void step() override;

 private:
  std::vector<Tensor> momentum_buffers_;
  SGDOptions options_;
};

}  // namespace ember::optim
