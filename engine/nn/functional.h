// torch::nn::functional, which libtorch programs shorten to `namespace F = torch::nn::functional;`:
// the functions the modules call, under the names libtorch gives them. They are ember's ops
// themselves, taking their arguments positionally as torch.nn.functional does in Python
// (F::softmax(x, 1), F::dropout(x, 0.5, is_training())); libtorch's option structs
// (F::SoftmaxFuncOptions) are not here.
#pragma once
#include "api/ops.h"

namespace ember::nn::functional {

using ember::cross_entropy;
using ember::dropout;
using ember::layer_norm;
using ember::linear;
using ember::log_softmax;
using ember::mse_loss;
using ember::nll_loss;
using ember::relu;
using ember::sigmoid;
using ember::softmax;
using ember::tanh;

}  // namespace ember::nn::functional
