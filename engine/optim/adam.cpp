// The Adam and AdamW updates (adam.h), one function for both, written as torch/optim/adam.py's
// _single_tensor_adam and adamw.py's _single_tensor_adamw (which differ only in their weight
// decay). Each line is the PyTorch line beside it; the ops round as PyTorch's kernels do: add_ with
// an alpha and addcmul_ as one fused multiply-add, mul_ and div by a number in the tensor's dtype.
#include "adam.h"

#include <cmath>

#include "api/ops.h"
#include "core/grad_mode.h"

namespace ember::optim {

namespace {

enum class WeightDecay { L2, Decoupled };  // Adam's, added to the gradient; AdamW's, on the parameter

// PyTorch's checks, in its order; then Optimizer's own (empty list, non-leaf).
AdamOptions checked(const AdamOptions& options) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.eps() >= 0, "Invalid epsilon value: ", options.eps());
  EMBER_CHECK(options.betas()[0] >= 0 && options.betas()[0] < 1,
              "Invalid beta parameter at index 0: ", options.betas()[0]);
  EMBER_CHECK(options.betas()[1] >= 0 && options.betas()[1] < 1,
              "Invalid beta parameter at index 1: ", options.betas()[1]);
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  return options;
}

void adam_update(Tensor& param, AdamState& state, const AdamOptions& options, WeightDecay weight_decay) {
  Tensor grad = param.grad();
  if (!state.step.defined()) {  // lazy state initialization
    state.step = zeros({});     // torch.tensor(0.)
    state.exp_avg = zeros_like(param);
    state.exp_avg_sq = zeros_like(param);
    if (options.amsgrad()) state.max_exp_avg_sq = zeros_like(param);
  }
  const double lr = options.lr(), beta1 = options.betas()[0], beta2 = options.betas()[1];

  state.step.add_(1);  // step_t += 1
  if (weight_decay == WeightDecay::Decoupled) {
    param.mul_(1 - lr * options.weight_decay());  // param.mul_(1 - lr * weight_decay)
  } else if (options.weight_decay() != 0) {
    grad = add(grad, param, options.weight_decay());  // grad = grad.add(param, alpha=weight_decay)
  }
  // Decay the first and second moment running average coefficient
  state.exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  state.exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);

  const double step = state.step.item<double>();  // step = step_t.item()
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);

  Tensor denom;
  if (options.amsgrad()) {
    // torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
    state.max_exp_avg_sq.copy_(maximum(state.max_exp_avg_sq, state.exp_avg_sq));
    denom = (state.max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(options.eps());
  } else {
    denom = (state.exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(options.eps());
  }
  param.addcdiv_(state.exp_avg, denom, -step_size);
}

void step_all(std::vector<Tensor>& parameters, std::vector<AdamState>& state, const AdamOptions& options,
              WeightDecay weight_decay) {
  NoGradGuard no_grad;
  for (size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].grad().defined()) adam_update(parameters[i], state[i], options, weight_decay);
}

}  // namespace

Adam::Adam(std::vector<Tensor> parameters, AdamOptions options) : options_(checked(options)) {
  set_parameters(std::move(parameters));
  state_.resize(parameters_.size());
}

void Adam::step() { step_all(parameters_, state_, options_, WeightDecay::L2); }

AdamW::AdamW(std::vector<Tensor> parameters, AdamWOptions options)
    : options_(checked(AdamOptions(options.lr())
                           .betas(options.betas())
                           .eps(options.eps())
                           .weight_decay(options.weight_decay())
                           .amsgrad(options.amsgrad()))) {
  set_parameters(std::move(parameters));
  state_.resize(parameters_.size());
}

void AdamW::step() { step_all(parameters_, state_, options_, WeightDecay::Decoupled); }

}  // namespace ember::optim
