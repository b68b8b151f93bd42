// PyTorch's rules for views and in-place ops under autograd (the ADInplaceOrView step of
// dispatch.h): views remember their base; an in-place op is refused on a leaf that requires grad
// (or a view of one), on an inference tensor outside inference mode, and on a view made under
// no_grad or inference mode; otherwise it bumps the version counter and rewrites the history.
//
// Note [In-place on views]
// An in-place op on a tensor that is not a view simply makes the op's node the tensor's new
// grad_fn. On a view, the values of the *base* changed too, so the base's grad_fn becomes
// CopySlices: the base's gradient passes through unchanged except in the view's region, where
// the op's own formula applies. The view itself becomes an AsStridedBackward0 view of the new
// base. A sibling view made earlier notices the change through the shared version counter
// (record.cpp, current_grad_fn) and rebuilds its grad_fn the same way.
#pragma once
#include <memory>

#include "node.h"

namespace ember::autograd {

enum class CreationMeta : uint8_t;  // autograd_meta.h

// For a view op: records the view relation (base, creation mode) the in-place rules need.
void record_view(const Tensor& view, const Tensor& base);

// PyTorch's handle_view_on_rebase: a view made under no_grad or inference mode may not get a new
// history, neither by an in-place op on itself nor (`indirect`) on its base or a sibling view.
void check_view_rebase(CreationMeta creation_meta, bool indirect);

// Checks PyTorch's rules before an in-place op writes into `self`.
void check_inplace(const Tensor& self);
// After an in-place op: bump the version and, when recording, make `node` self's new grad_fn.
void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node);

}  // namespace ember::autograd
