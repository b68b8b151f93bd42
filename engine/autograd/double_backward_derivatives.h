// The backward nodes of the ops that derivative formulas themselves call (relu's gradient is
// threshold_backward, nll_loss's is nll_loss_backward): recorded only under create_graph, when a
// gradient is differentiated again (double backward), as PyTorch's derivatives.yaml entries for
// those ops. A group of derivatives.h's nodes kept in a file of its own; derivatives.h lists the
// sections.
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"
#include "saved_tensor.h"

namespace ember::autograd {

struct ThresholdBackwardBackward0 {  // threshold_backward(grad_output, self, threshold): relu's gradient
  static constexpr const char* name = "ThresholdBackwardBackward0";
  EMBER_SAVED_TENSORS(self);
  Scalar threshold = 0;
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? threshold_backward(g, self.unpack(), threshold) : Tensor(), needs[1] ? zeros_like(g) : Tensor()};
  }
};
// nll_loss_backward(grad_output, ...) and nll_loss2d_backward: linear in grad_output, whose gradient
// is the loss itself taken of g; inputs: grad_output, target, weight, total_weight.
template <const char* Name, Tensor (*loss)(const Tensor&, const Tensor&, const Tensor&, Reduction, int64_t)>
struct NllLossBackwardBackwardNode {
  static constexpr const char* name = Name;
  EMBER_SAVED_TENSORS(target, weight);  // weight undefined when the call had none
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  Grads apply(const Tensor& g, Needs) const {
    const Tensor t = target.unpack(), w = weight.unpack();  // saved order
    return {loss(g, t, w, reduction, ignore_index)};
  }
};
inline constexpr char kNllLossBackwardBackward0[] = "NllLossBackwardBackward0",
                      kNllLoss2DBackwardBackward0[] = "NllLoss2DBackwardBackward0";
struct NllLossBackwardBackward0 : NllLossBackwardBackwardNode<kNllLossBackwardBackward0, ember::nll_loss> {};
struct NllLoss2DBackwardBackward0 : NllLossBackwardBackwardNode<kNllLoss2DBackwardBackward0, ember::nll_loss2d> {};

// This section's nodes, for BackwardFunction (derivatives.h).
using DoubleBackwardNodes = NodeList<ThresholdBackwardBackward0, NllLossBackwardBackward0, NllLoss2DBackwardBackward0>;

}  // namespace ember::autograd
