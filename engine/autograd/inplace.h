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

#include "core/grad_mode.h"
#include "node.h"

namespace ember::autograd {

// PyTorch's AutoDispatchBelowADInplaceOrView: an op's compute runs below autograd and below this
// step, so what it does inside (views of its own temporaries, say matmul's reshape of a dot
// product) records nothing: grad mode is off, and views made there are plain tensors. A user's
// no_grad block is not this: views made there are recorded, as created in no_grad mode.
class BelowAutograd {
 public:
  BelowAutograd();
  ~BelowAutograd();
  BelowAutograd(const BelowAutograd&) = delete;
  BelowAutograd& operator=(const BelowAutograd&) = delete;
  // Whether this thread is inside an op's compute now.
  static bool active();

 private:
  NoGradGuard no_grad_;
  bool previous_;
};

struct AutogradMeta;

// For a view op: records the view relation (base, creation mode) the in-place rules need; the
// outputs of an op with several (unbind, split) may not be modified in place.
void record_view(const Tensor& view, const Tensor& base, bool multiple_outputs = false);

// PyTorch's handle_view_on_rebase: a view made under no_grad or inference mode, by an op with
// several outputs or in a custom function may not get a new history, neither by an in-place op on
// itself nor (`indirect`) on its base or a sibling view.
void check_view_rebase(const AutogradMeta& view_meta, bool indirect);

// Checks PyTorch's rules before an in-place op writes into `self` (an inference tensor is refused
// after, in finish_inplace, as PyTorch refuses it when bumping its version). As in PyTorch's check_inplace,
// the autograd rules apply when any of the op's inputs requires grad: `v.sub_(w)` with w requiring
// grad would give v a history, so a v made under no_grad is refused even if v itself needs none.
void check_inplace(const Tensor& self, bool any_requires_grad);
// After an in-place op: bump the version and, when recording, make `node` self's new grad_fn.
void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node);
// Makes output `output_nr` of `node` self's new history: self's grad_fn, or, for a view, its base's
// CopySlices (Note [In-place on views]). An in-place op, and a custom function's dirty input.
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node, uint32_t output_nr);

}  // namespace ember::autograd
