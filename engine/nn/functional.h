// torch::nn::functional, which libtorch programs shorten to `namespace F = torch::nn::functional;`:
// the functions the modules call, under the names libtorch gives them. Most are ember's ops
// themselves, taking their arguments positionally as torch.nn.functional does in Python
// (F::softmax(x, 1), F::dropout(x, 0.5, is_training())); the losses take libtorch's option structs
// (F::cross_entropy(x, t, F::CrossEntropyFuncOptions().weight(w).reduction(kSum)), loss_options.h).
#pragma once
#include "api/ops.h"
#include "loss_options.h"

namespace ember::nn::functional {

using ember::dropout;
using ember::layer_norm;
using ember::linear;
using ember::log_softmax;
using ember::relu;
using ember::sigmoid;
using ember::softmax;
using ember::tanh;

inline Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return ember::mse_loss(input, target, options.reduction());
}
// Any input [C], [N, C] or [N, C, d1, ...] (libtorch's, like torch.nn.functional's, is nll_loss_nd).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  return ember::nll_loss_nd(input, target, options.weight(), options.reduction(), options.ignore_index());
}
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {}) {
  return ember::cross_entropy(input, target, options.weight(), options.reduction(), options.ignore_index(),
                              options.label_smoothing());
}

}  // namespace ember::nn::functional
