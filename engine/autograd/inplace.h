// PyTorch's rules for views and in-place ops under autograd (fact sheet sections 1.6, 1.8, 1.12):
// views remember their base; an in-place op is refused on a leaf that requires grad (or a view of
// one), on an inference tensor outside inference mode, and on a view made under no_grad or
// inference mode; otherwise it bumps the version counter and rewrites the history: the tensor's
// grad_fn becomes the op's node, and for a view the base's grad_fn becomes CopySlices.
#pragma once
#include <memory>

#include "node.h"

namespace ember::autograd {

// For a view op: records the view relation (base, creation mode) the in-place rules need.
void record_view(const Tensor& view, const Tensor& base);

// Checks PyTorch's rules before an in-place op writes into `self`.
void check_inplace(const Tensor& self);
// After an in-place op: bump the version and, when recording, make `node` self's new grad_fn.
void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node);

}  // namespace ember::autograd
