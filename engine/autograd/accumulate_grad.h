// The node at a leaf that requires grad: it adds each incoming gradient into the leaf's .grad
// (PyTorch's torch::autograd::AccumulateGrad), keeping PyTorch's layout contract and stealing the
// incoming tensor when no other handle refers to it. So a first .grad can share bytes and version
// with a tensor the user holds, as in PyTorch: x.view(12).backward(g) makes x.grad a view of g.
#pragma once
#include <memory>

#include "formula_helpers.h"

namespace ember::autograd {

struct AccumulateGrad {  // adds the incoming gradient into the leaf's .grad
  static constexpr const char* name = "torch::autograd::AccumulateGrad";
  // The leaf, which owns this node: whoever holds the node through an edge holds the leaf too.
  std::weak_ptr<TensorImpl> variable;
  Grads apply(const Tensor& g, Needs) const;
};

// Adds `new_grad` into `variable`'s .grad as AccumulateGrad does (also for a non-leaf named in
// backward's `inputs`): in place when grad mode is off, as a new tensor under create_graph.
void accumulate_grad(const Tensor& variable, const Tensor& new_grad);

}  // namespace ember::autograd
