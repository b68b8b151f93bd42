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
struct NllLossBackwardBackward0 {  // nll_loss_backward(grad_output, target, ...): linear in grad_output
  static constexpr const char* name = "NllLossBackwardBackward0";
  EMBER_SAVED_TENSORS(target);
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  Grads apply(const Tensor& g, Needs) const {
    return {ember::nll_loss(g, target.unpack(), reduction, ignore_index), Tensor()};
  }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using DoubleBackwardNodes = NodeList<ThresholdBackwardBackward0, NllLossBackwardBackward0>;

}  // namespace ember::autograd
