// The optimizers' common part (optimizer.h), as torch/optim/optimizer.py.
#include "optimizer.h"

#include "core/grad_mode.h"

namespace ember::optim {

void Optimizer::set_parameters(std::vector<Tensor> parameters) {
  EMBER_CHECK(!parameters.empty(), "optimizer got an empty parameter list");
  for (const Tensor& p : parameters) EMBER_CHECK(p.is_leaf(), "can't optimize a non-leaf Tensor");
  parameters_ = std::move(parameters);
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (Tensor& p : parameters_) {
    if (set_to_none) p.mutable_grad() = Tensor();
    else if (p.grad().defined()) p.grad().zero_();
  }
}

}  // namespace ember::optim
