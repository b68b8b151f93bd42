// optim::Adam and optim::AdamW, as torch.optim.Adam and torch.optim.AdamW of PyTorch 1.13: the
// same in-place ops in the same order as its _single_tensor_adam and _single_tensor_adamw, so a
// training run ends on PyTorch's parameters bit for bit. For each parameter p with gradient g, at
// step t:
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
struct AdamOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(Betas, betas) = {0.9, 0.999};
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;  // L2: added to the gradient
  TORCH_ARG(bool, amsgrad) = false;
};

struct AdamWOptions {
  AdamWOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr);
  TORCH_ARG(Betas, betas) = {0.9, 0.999};
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;  // decoupled: the parameter shrinks by lr * weight_decay each step
  TORCH_ARG(bool, amsgrad) = false;
};

// What Adam keeps for each parameter (torch's optimizer.state[p]), made at its first step.
struct AdamState {
  Tensor step;            // 0-dim float32 on the CPU: how many steps this parameter has taken
  Tensor exp_avg;         // m
  Tensor exp_avg_sq;      // v
  Tensor max_exp_avg_sq;  // the largest v so far (amsgrad only)
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> parameters, AdamOptions options = {});
  void step() override;
  // The state of parameters()[i] (undefined tensors before its first step).
  const AdamState& state(size_t i) const { return state_[i]; }

 private:
  AdamOptions options_;
  std::vector<AdamState> state_;
};

class AdamW : public Optimizer {
 public:
  AdamW(std::vector<Tensor> parameters, AdamWOptions options = {});
  void step() override;
  const AdamState& state(size_t i) const { return state_[i]; }

 private:
  AdamOptions options_;  // AdamWOptions' values; weight_decay is applied to the parameter
  std::vector<AdamState> state_;
};

}  // namespace ember::optim
