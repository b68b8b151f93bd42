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
// nll_loss's and nll_loss2d's nodes: -w[t] g at each target's log-probability (divided by the
// targets' total weight for the mean); inputs: self, target, weight. PyTorch keeps self too; its
// formula needs only self's sizes.
template <const char* Name, Tensor (*formula)(const Tensor&, const Dims&, const Tensor&, const Tensor&, Reduction,
                                              int64_t, const Tensor&)>
struct NllLossBackwardNode {
  static constexpr const char* name = Name;
  EMBER_SAVED_TENSORS(target, weight, total_weight);  // weight undefined when the call had none
  Dims self_sizes;
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  Grads apply(const Tensor& g, Needs) const {
    const Tensor t = target.unpack(), w = weight.unpack(), total = total_weight.unpack();  // saved order
    return {formula(g, self_sizes, t, w, reduction, ignore_index, total)};
  }
};
inline constexpr char kNllLossBackward0[] = "NllLossBackward0", kNllLoss2DBackward0[] = "NllLoss2DBackward0";
struct NllLossBackward0 : NllLossBackwardNode<kNllLossBackward0, ember::nll_loss_backward> {};
struct NllLoss2DBackward0 : NllLossBackwardNode<kNllLoss2DBackward0, ember::nll_loss2d_backward> {};

// This section's nodes, for BackwardFunction (derivatives.h).
using NnNodes = NodeList<SoftmaxBackward0, LogSoftmaxBackward0, NativeLayerNormBackward0, MseLossBackward0,
                         NllLossBackward0, NllLoss2DBackward0>;

}  // namespace ember::autograd
