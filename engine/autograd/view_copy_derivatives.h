// The backward nodes of the *_copy ops (permute_copy, expand_copy, ...: view_copies.h), one section
// of autograd's formulas (derivatives.h lists the sections). A copy of a view has the view's
// gradient, so each node is its view's node under PyTorch's name for it, the view's name with
// "_copy" (PermuteBackward0_copy), as PyTorch generates one per view for its functionalization.
#pragma once
#include <array>
#include <string>

#include "view_derivatives.h"

namespace ember::autograd {

// "<Named::name>_copy", made at compile time (an op's or a node's name: aten::permute_copy).
template <typename Named>
struct CopyName {
  static constexpr size_t length = std::char_traits<char>::length(Named::name);
  static constexpr std::array<char, length + sizeof("_copy")> text = [] {
    std::array<char, length + sizeof("_copy")> out{};
    for (size_t i = 0; i < length; ++i) out[i] = Named::name[i];
    for (size_t i = 0; i < sizeof("_copy"); ++i) out[length + i] = "_copy"[i];
    return out;
  }();
};

// The view whose copy it is: alias_copy's, which ember has as no op of its own (the gradient passes).
struct AliasBackward0 {
  static constexpr const char* name = "AliasBackward0";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};

template <typename ViewNode>
struct CopyBackward : ViewNode {
  static constexpr const char* name = CopyName<ViewNode>::text.data();
};

// This section's nodes, for BackwardFunction (derivatives.h).
using ViewCopyNodes =
    NodeList<CopyBackward<ExpandBackward0>, CopyBackward<PermuteBackward0>, CopyBackward<ViewBackward0>,
             CopyBackward<SelectBackward0>, CopyBackward<SliceBackward0>, CopyBackward<TransposeBackward0>,
             CopyBackward<TBackward0>, CopyBackward<SqueezeBackward0>, CopyBackward<SqueezeBackward1>,
             CopyBackward<UnsqueezeBackward0>, CopyBackward<DiagonalBackward0>, CopyBackward<AsStridedBackward0>,
             CopyBackward<AliasBackward0>, CopyBackward<UnbindBackward0>, CopyBackward<SplitBackward0>,
             CopyBackward<SplitWithSizesBackward0>, CopyBackward<UnfoldBackward0>, CopyBackward<ReshapeAliasBackward0>>;

}  // namespace ember::autograd
