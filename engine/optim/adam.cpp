// The Adam and AdamW updates (adam.h), one function for both (over either's options), written as torch/optim/adam.py's
// _single_tensor_adam and adamw.py's _single_tensor_adamw (which differ only in their weight
// decay). Each line is the PyTorch line beside it; the ops round as PyTorch's kernels do: add_ with
// an alpha and addcmul_ as one fused multiply-add, mul_ and div by a number in the tensor's dtype.
#include "adam.h"

#include <cmath>

#include "api/ops.h"

namespace ember::optim {

namespace {

enum class WeightDecay { L2, Decoupled };  // Adam's, added to the gradient; AdamW's, on the parameter

// PyTorch's checks, in its order; then Optimizer's own (empty list, non-leaf).
template <typename Options>
std::unique_ptr<Options> checked(const Options& options) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.eps() >= 0, "Invalid epsilon value: ", options.eps());
  EMBER_CHECK(options.betas()[0] >= 0 && options.betas()[0] < 1,
              "Invalid beta parameter at index 0: ", options.betas()[0]);
  EMBER_CHECK(options.betas()[1] >= 0 && options.betas()[1] < 1,
              "Invalid beta parameter at index 1: ", options.betas()[1]);
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  return std::make_unique<Options>(options);
}

template <typename Options>
void adam_update(Tensor& param, AdamParamState& state, const Options& options, WeightDecay weight_decay) {
  Tensor grad = param.grad();
  if (options.maximize()) grad = neg(grad);
  if (!state.step().defined()) {  // lazy state initialization
    state.step(zeros({}));        // torch.tensor(0.)
    state.exp_avg(zeros_like(param));
    state.exp_avg_sq(zeros_like(param));
    if (options.amsgrad()) state.max_exp_avg_sq(zeros_like(param));
  }
  Tensor step_t = state.step(), exp_avg = state.exp_avg(), exp_avg_sq = state.exp_avg_sq();
  const double lr = options.lr(), beta1 = options.betas()[0], beta2 = options.betas()[1];

  step_t.add_(1);  // step_t += 1
  if (weight_decay == WeightDecay::Decoupled) {
    param.mul_(1 - lr * options.weight_decay());  // param.mul_(1 - lr * weight_decay)
  } else if (options.weight_decay() != 0) {
    grad = add(grad, param, options.weight_decay());  // grad = grad.add(param, alpha=weight_decay)
  }
  // Decay the first and second moment running average coefficient
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);

  const double step = step_t.item<double>();  // step = step_t.item()
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);

  Tensor denom;
  if (options.amsgrad()) {
    // torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
    Tensor max_exp_avg_sq = state.max_exp_avg_sq();
    max_exp_avg_sq.copy_(maximum(max_exp_avg_sq, exp_avg_sq));
    denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(options.eps());
  } else {
    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(options.eps());
  }
  param.addcdiv_(exp_avg, denom, -step_size);
}

}  // namespace

NamedTensors AdamParamState::named_tensors() const {
  NamedTensors named;
  for (auto& [name, value] : {std::pair<const char*, const Tensor&>{"step", step()},
                              {"exp_avg", exp_avg()},
                              {"exp_avg_sq", exp_avg_sq()},
                              {"max_exp_avg_sq", max_exp_avg_sq()}})
    if (value.defined()) named.emplace_back(name, value);
  return named;
}

void AdamParamState::set_tensor(const std::string& name, Tensor value) {
  if (name == "step") step(value);
  else if (name == "exp_avg") exp_avg(value);
  else if (name == "exp_avg_sq") exp_avg_sq(value);
  else if (name == "max_exp_avg_sq") max_exp_avg_sq(value);
  else EMBER_CHECK(false, "Adam keeps no state named '", name, "'");
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), checked(defaults)) {}

Adam::Adam(std::vector<Tensor> params, AdamOptions defaults) : Optimizer(std::move(params), checked(defaults)) {}

std::unique_ptr<OptimizerParamState> Adam::make_param_state() const { return std::make_unique<AdamParamState>(); }

void Adam::step() {
  update_each<AdamOptions, AdamParamState>([](Tensor& p, const AdamOptions& options, AdamParamState& state) {
    adam_update(p, state, options, WeightDecay::L2);
  });
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), checked(defaults)) {}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions defaults) : Optimizer(std::move(params), checked(defaults)) {}

std::unique_ptr<OptimizerParamState> AdamW::make_param_state() const { return std::make_unique<AdamParamState>(); }

void AdamW::step() {
  update_each<AdamWOptions, AdamParamState>([](Tensor& p, const AdamWOptions& options, AdamParamState& state) {
    adam_update(p, state, options, WeightDecay::Decoupled);
  });
}

}  // namespace ember::optim
