// The node at a leaf that requires grad: it adds each incoming gradient into the leaf's .grad
// (PyTorch's torch::autograd::AccumulateGrad), keeping PyTorch's layout contract and stealing the
// incoming tensor when nothing else refers to it.
#pragma once
#include <memory>

#include "formula_helpers.h"

namespace ember::autograd {

struct AccumulateGrad {  // adds the incoming gradient into the leaf's .grad
  static constexpr const char* name = "torch::autograd::AccumulateGrad";
  std::shared_ptr<TensorImpl> variable;
  Grads apply(const Tensor& g, Needs) const;
};

}  // namespace ember::autograd
