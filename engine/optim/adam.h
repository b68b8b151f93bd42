// optim::Adam and optim::AdamW, as torch.optim.Adam and torch.optim.AdamW of PyTorch 1.13: the
// same in-place ops in the same order as its _single_tensor_adam and _single_tensor_adamw, so a
// training run ends on PyTorch's parameters bit for bit. For each parameter p with gradient g, at
// step t, with its group's options (maximize: g = -g first):
//   Adam:  g = g + weight_decay * p            AdamW: p = p * (1 - lr * weight_decay)
//   m = beta1 * m + (1 - beta1) * g            (exp_avg)
//   v = beta2 * v + (1 - beta2) * g * g        (exp_avg_sq; amsgrad: v_max = max(v_max, v), used below)
//   p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// The bias corrections 1 - beta^t are Python floats there, so doubles here; the step count t is a
// float32 tensor per parameter, as in 1.13 (where it stops growing at 2^24, and so does ember's).
#pragma once
#include <array>
#include <vector>

#include "optimizer.h"

namespace ember::optim {

using Betas = std::array<double, 2>;  // (beta1, beta2), read with betas()[0] or std::get<0>(betas())

// AdamOptions(1e-3).betas({0.9, 0.999}).weight_decay(1e-4), as libtorch's (optimizer.h: TORCH_ARG).
struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(Betas, betas) = {0.9, 0.999};
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;  // L2: added to the gradient
  TORCH_ARG(bool, amsgrad) = false;
  TORCH_ARG(bool, maximize) = false;  // torch's (libtorch 1.13 has no maximize)
};

struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(Betas, betas) = {0.9, 0.999};
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;  // decoupled: the parameter shrinks by lr * weight_decay each step
  TORCH_ARG(bool, amsgrad) = false;
  TORCH_ARG(bool, maximize) = false;
};

// What Adam and AdamW keep for each parameter, made at its first step: torch's optimizer.state[p],
// {"step", "exp_avg", "exp_avg_sq"} and, with amsgrad, "max_exp_avg_sq". libtorch counts the
// steps in an int64_t; torch 1.13's Python in a tensor, which ember follows.
struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  TORCH_ARG(Tensor, step);            // 0-dim float32 on the CPU: how many steps this parameter has taken
  TORCH_ARG(Tensor, exp_avg);         // m
  TORCH_ARG(Tensor, exp_avg_sq);      // v
  TORCH_ARG(Tensor, max_exp_avg_sq);  // the largest v so far (amsgrad only)

 public:
  NamedTensors named_tensors() const override;
  void set_tensor(const std::string& name, Tensor value) override;
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  void step() override;

 private:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  AdamW(std::vector<Tensor> params, AdamWOptions defaults = {});
  void step() override;

 private:
  std::unique_ptr<OptimizerParamState> make_param_state() const override;
};

}  // namespace ember::optim
