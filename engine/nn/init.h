// Parameter initialisation as torch.nn.init does it, drawing from the default generator in the
// same order and with the same bounds, so a seeded ember network starts where PyTorch's does.
// Each function works in place under no_grad (bumping the version counter, as in PyTorch).
#pragma once
#include "core/tensor.h"

namespace ember::nn::init {

// Fills t with U(from, to) (torch.nn.init.uniform_).
Tensor& uniform_(Tensor& t, double from, double to);
// Fills t with U(-bound, bound), bound = gain * sqrt(3 / fan_in), gain = sqrt(2 / (1 + a^2))
// (torch.nn.init.kaiming_uniform_ with mode='fan_in', nonlinearity='leaky_relu').
Tensor& kaiming_uniform_(Tensor& t, double a = 0.0);

}  // namespace ember::nn::init
