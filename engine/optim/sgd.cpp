// The SGD update, written as torch/optim/sgd.py's _single_tensor_sgd (each `add` with an alpha is
// rounded once, as PyTorch's, so the steps are PyTorch's bits).
#include "sgd.h"

#include "api/ops.h"

namespace ember::optim {

namespace {

// PyTorch's checks, in its order, before Optimizer's own (empty list, non-leaf).
std::unique_ptr<SGDOptions> checked(const SGDOptions& options) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  return std::make_unique<SGDOptions>(options);
}

}  // namespace

// Without momentum, torch keeps {"momentum_buffer": None} for each parameter that has stepped.
NamedTensors SGDParamState::named_tensors() const { return {{"momentum_buffer", momentum_buffer()}}; }

void SGDParamState::set_tensor(const std::string& name, Tensor value) {
  EMBER_CHECK(name == "momentum_buffer", "SGD keeps no state named '", name, "'");
  momentum_buffer(value);
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), checked(defaults)) {}

SGD::SGD(std::vector<Tensor> params, SGDOptions defaults) : Optimizer(std::move(params), checked(defaults)) {}

std::unique_ptr<OptimizerParamState> SGD::make_param_state() const { return std::make_unique<SGDParamState>(); }

void SGD::step() {
  update_each<SGDOptions, SGDParamState>([](Tensor& p, const SGDOptions& options, SGDParamState& state) {
    Tensor g = p.grad();
    if (options.maximize()) g = neg(g);
    if (options.weight_decay() != 0) g = add(g, p, options.weight_decay());
    if (options.momentum() != 0) {
      Tensor buf = state.momentum_buffer();
      if (!buf.defined()) {
        state.momentum_buffer(buf = g.clone());
      } else {
        buf.mul_(options.momentum()).add_(g, 1 - options.dampening());
      }
      g = options.nesterov() ? add(g, buf, options.momentum()) : buf;
    }
    p.add_(g, -options.lr());
  });
}

}  // namespace ember::optim
