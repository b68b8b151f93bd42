// optim::SGD, as torch.optim.SGD: for each parameter p with gradient g, with its group's options,
//   g = -g if maximize;  g = g + weight_decay * p;  buf = momentum * buf + (1 - dampening) * g
//   (buf = g on the first step);  g = nesterov ? g + momentum * buf : buf;  p -= lr * g.
// Updates happen in place under no_grad, so each step bumps every parameter's version counter.
#pragma once
#include <vector>

#include "optimizer.h"

namespace ember::optim {

// SGDOptions(0.01).momentum(0.9): the learning rate first, as libtorch's (and torch's, which requires it).
struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;
  TORCH_ARG(bool, maximize) = false;  // torch's (libtorch 1.13 has no maximize)
};

// torch's optimizer.state[p] of SGD with momentum: {"momentum_buffer": buf}.
struct SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  TORCH_ARG(Tensor, momentum_buffer);

 public:
  NamedTensors named_tensors() const override;
  void set_tensor(const std::string& name, Tensor value) override;
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<Tensor> params, SGDOptions defaults);
  void step() override;

 private:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
