// optim::Optimizer: what every optimizer shares, as torch.optim.Optimizer: the parameters it
// updates (checked when it is made: PyTorch's "optimizer got an empty parameter list" and "can't
// optimize a non-leaf Tensor"), zero_grad, and step, which each optimizer writes. GradScaler steps
// any of them through this.
#pragma once
#include <vector>

#include "core/arg.h"  // TORCH_ARG, which the optimizers' options are written with
#include "core/tensor.h"

namespace ember::optim {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;  // the state belongs to these parameters: not to be copied
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient, in place under no_grad (each bumps the
  // parameter's version counter).
  virtual void step() = 0;
  // Zeroes every parameter's .grad in place (PyTorch 1.13's default), or drops it (set_to_none).
  void zero_grad(bool set_to_none = false);
  const std::vector<Tensor>& parameters() const { return parameters_; }

 protected:
  Optimizer() = default;
  // PyTorch's Optimizer.__init__, which a subclass calls after checking its own options (so a bad
  // learning rate is reported before an empty parameter list, as there).
  void set_parameters(std::vector<Tensor> parameters);

  std::vector<Tensor> parameters_;
};

}  // namespace ember::optim
