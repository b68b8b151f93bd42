// The backward nodes of the neural-network functions: softmax, log_softmax, layer_norm and the
// losses. One section of autograd's formulas (derivatives.h).
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"
#include "saved_tensor.h"

namespace ember::autograd {

// ---- neural-network functions ----
struct SoftmaxBackward0 {  // y (g - sum(g y))
  static constexpr const char* name = "SoftmaxBackward0";
  int64_t dim = 0;
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return softmax_backward(g, unpack_output(result), dim); }
};
struct LogSoftmaxBackward0 {  // g - exp(y) sum(g)
  static constexpr const char* name = "LogSoftmaxBackward0";
  int64_t dim = 0;
  EMBER_SAVED_TENSORS(result);
  Grads apply(const Tensor& g, Needs) const { return {g - unpack_output(result).exp() * g.sum({dim}, true)}; }
};
struct NativeLayerNormBackward0 {  // inputs: input, weight, bias
  static constexpr const char* name = "NativeLayerNormBackward0";
  EMBER_SAVED_TENSORS(input, weight, mean, rstd);  // weight undefined when the call had none
  Dims normalized_shape;
  double eps = 1e-5;  // for create_graph, which recomputes mean and rstd from the input (formula_helpers.cpp)
  Grads apply(const Tensor& g, Needs) const {
    const Tensor x = input.unpack(), w = weight.unpack(), mu = mean.unpack(), r = rstd.unpack();  // saved order
    return layer_norm_backward(g, x, mu, r, w, normalized_shape, eps);
  }
};
struct MseLossBackward0 {  // d (x - t)^2 = 2 (x - t), divided by n for the mean
  static constexpr const char* name = "MseLossBackward0";
  EMBER_SAVED_TENSORS(self, target);
  Reduction reduction = Reduction::Mean;
  Grads apply(const Tensor& g, Needs) const {
    const Tensor input = self.unpack(), expected = target.unpack();  // in the order saved, as PyTorch unpacks
    const Tensor diff = input - expected;
    const double factor = reduction == Reduction::Mean ? 2.0 / static_cast<double>(diff.numel()) : 2.0;
    const Tensor grad_input = g * diff * factor;
    return {grad_input, -grad_input};
  }
};
struct NllLossBackward0 {  // -g at each target's log-probability; inputs: self, target
  static constexpr const char* name = "NllLossBackward0";
  EMBER_SAVED_TENSORS(target);
  Dims self_sizes;
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  int64_t total_weight = 0;  // targets not ignored: the mean's divisor
  Grads apply(const Tensor& g, Needs) const {
    return {ember::nll_loss_backward(g, target.unpack(), self_sizes, reduction, ignore_index, total_weight)};
  }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using NnNodes =
    NodeList<SoftmaxBackward0, LogSoftmaxBackward0, NativeLayerNormBackward0, MseLossBackward0, NllLossBackward0>;

}  // namespace ember::autograd
