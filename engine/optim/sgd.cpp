// The SGD update, written as torch/optim/sgd.py's _single_tensor_sgd (each `add` with an alpha is
// rounded once, as PyTorch's, so the steps are PyTorch's bits).
#include "sgd.h"

#include "api/ops.h"
#include "core/grad_mode.h"

namespace ember::optim {

SGD::SGD(std::vector<Tensor> parameters, SGDOptions options) : options_(options) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  set_parameters(std::move(parameters));
  momentum_buffers_.resize(parameters_.size());
}

void SGD::step() {
  NoGradGuard no_grad;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    Tensor& p = parameters_[i];
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (options_.weight_decay() != 0) g = add(g, p, options_.weight_decay());
    if (options_.momentum() != 0) {
      Tensor& buf = momentum_buffers_[i];
      if (!buf.defined()) {
        buf = g.clone();
      } else {
        buf.mul_(options_.momentum()).add_(g, 1 - options_.dampening());
      }
      g = options_.nesterov() ? add(g, buf, options_.momentum()) : buf;
    }
    p.add_(g, -options_.lr());
  }
}

}  // namespace ember::optim
