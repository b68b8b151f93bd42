// optim::SGD, as torch.optim.SGD: for each parameter p with gradient g,
//   g = g + weight_decay * p;  buf = momentum * buf + (1 - dampening) * g (buf = g on the first
//   step);  g = nesterov ? g + momentum * buf : buf;  p -= lr * g.
// Updates happen in place under no_grad, so each step bumps every parameter's version counter.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace ember::optim {

struct SGDOptions {
  double lr = 0.01;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class SGD {
 public:
  SGD(std::vector<Tensor> parameters, SGDOptions options);
  void step();
  // Zeroes every parameter's .grad in place (PyTorch 1.13's default), or drops it (set_to_none).
  void zero_grad(bool set_to_none = false);
  const std::vector<Tensor>& parameters() const { return parameters_; }

 private:
  std::vector<Tensor> parameters_;
  std::vector<Tensor> momentum_buffers_;
  SGDOptions options_;
};

}  // namespace ember::optim
