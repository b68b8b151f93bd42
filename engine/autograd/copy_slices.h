// The node an in-place op on a view gives the view's base (PyTorch's CopySlices), and the
// gradient of a view known only by its layout: both address a view and its base in the same
// storage coordinates. See Note [In-place on views] (inplace.h).
#pragma once
#include <memory>

#include "formula_helpers.h"

namespace ember::autograd {

// An in-place op on a view becomes the base's CopySlices: `fn` (the op's own node) applies to the
// view's region of the base's gradient; the rest passes through. See Note [In-place on views].
struct CopySlices {
  static constexpr const char* name = "torch::autograd::CopySlices";
  Geometry view, base;
  std::shared_ptr<Node> fn;
  Grads apply(const Tensor& g, Needs) const;
};

}  // namespace ember::autograd
