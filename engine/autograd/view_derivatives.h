// The backward nodes of the view ops, one section of autograd's formulas (derivatives.h lists the
// sections): each maps the gradient of a view back onto the layout of the tensor it views, as
// PyTorch's derivatives.yaml entries for the view ops do.
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"

namespace ember::autograd {

// ---- views: map the view's gradient back onto the input's layout ----
struct ViewBackward0 {
  static constexpr const char* name = "ViewBackward0";
  Dims self_sizes;
  Grads apply(const Tensor& g, Needs) const { return {g.reshape(self_sizes)}; }
};
struct ReshapeAliasBackward0 : ViewBackward0 {
  static constexpr const char* name = "ReshapeAliasBackward0";
};
struct UnsafeViewBackward0 : ViewBackward0 {
  static constexpr const char* name = "UnsafeViewBackward0";
};
// A squeeze's gradient: g with the squeezed dims put back (ATen's unsqueeze_to), which is g itself
// when the squeeze removed nothing; AccumulateGrad then sees the handle it was given.
struct SqueezeBackward0 {
  static constexpr const char* name = "SqueezeBackward0";
  Dims self_sizes;
  Grads apply(const Tensor& g, Needs) const { return {g.sizes() == self_sizes ? g : g.reshape(self_sizes)}; }
};
struct SqueezeBackward1 : SqueezeBackward0 {
  static constexpr const char* name = "SqueezeBackward1";
};
struct SqueezeBackward2 : SqueezeBackward0 {  // squeeze_(), in place
  static constexpr const char* name = "SqueezeBackward2";
};
struct SqueezeBackward3 : SqueezeBackward0 {  // squeeze_(dim), in place
  static constexpr const char* name = "SqueezeBackward3";
};
struct UnsqueezeBackward0 {  // g.squeeze(dim): keeps g's strides, even the zero ones of an expanded g
  static constexpr const char* name = "UnsqueezeBackward0";
  int64_t dim = 0;
  Grads apply(const Tensor& g, Needs) const { return {g.squeeze(dim)}; }
};
struct UnsqueezeBackward1 : UnsqueezeBackward0 {  // unsqueeze_(dim), in place
  static constexpr const char* name = "UnsqueezeBackward1";
};
struct ExpandBackward0 {  // sum over the broadcast dims
  static constexpr const char* name = "ExpandBackward0";
  Dims self_sizes;
  Grads apply(const Tensor& g, Needs) const;
};
struct TransposeBackward0 {
  static constexpr const char* name = "TransposeBackward0";
  int64_t dim0 = 0, dim1 = 0;
  Grads apply(const Tensor& g, Needs) const { return {g.transpose(dim0, dim1)}; }  // a new view, even of a 0-d g
};
struct TBackward0 {
  static constexpr const char* name = "TBackward0";
  Grads apply(const Tensor& g, Needs) const { return {g.t()}; }
};
// ---- in-place views (transpose_, t_, squeeze_, unsqueeze_, as_strided_): the same formulas ----
struct TransposeBackward1 : TransposeBackward0 {
  static constexpr const char* name = "TransposeBackward1";
};
struct TBackward1 : TBackward0 {
  static constexpr const char* name = "TBackward1";
};
struct PermuteBackward0 {  // the inverse permutation
  static constexpr const char* name = "PermuteBackward0";
  Dims dims;
  Grads apply(const Tensor& g, Needs) const {
    Dims inverse = dims;
    for (int64_t i = 0; i < dims.size(); ++i) inverse[dims[i]] = i;
    return {g.permute(inverse)};
  }
};
struct SelectBackward0 {  // g placed at `index` of a zero tensor
  static constexpr const char* name = "SelectBackward0";
  Dims self_sizes;
  int64_t dim = 0, index = 0;
  Grads apply(const Tensor& g, Needs) const {
    return {embedded(g, self_sizes, [&](const Tensor& t) { return t.select(dim, index); })};
  }
};
struct SliceBackward0 {  // g placed in the slice of a zero tensor
  static constexpr const char* name = "SliceBackward0";
  Dims self_sizes;
  int64_t dim = 0, start = 0, end = 0, step = 1;
  Grads apply(const Tensor& g, Needs) const {
    return {embedded(g, self_sizes, [&](const Tensor& t) { return t.slice(dim, start, end, step); })};
  }
};
// unfold's gradient: each window's gradient added back where the window lies, so an element that
// several windows read gets the sum of their gradients (PyTorch's unfold_backward).
Tensor unfold_backward(const Tensor& g, const Dims& self_sizes, int64_t dim, int64_t size, int64_t step);
struct UnfoldBackward0 {
  static constexpr const char* name = "UnfoldBackward0";
  Dims self_sizes;
  int64_t dimension = 0, size = 0, step = 1;
  Grads apply(const Tensor& g, Needs) const { return {unfold_backward(g, self_sizes, dimension, size, step)}; }
};
struct AsStridedBackward0 {  // a view known only by its layout: see Note [In-place on views]
  static constexpr const char* name = "AsStridedBackward0";
  Geometry view, base;
  Grads apply(const Tensor& g, Needs) const { return {as_strided_backward(g, view, base)}; }
};
struct AsStridedBackward1 : AsStridedBackward0 {  // as_strided_, in place
  static constexpr const char* name = "AsStridedBackward1";
};

// ---- views with several outputs: each output's gradient (zeros where it got none) put back ----
// Gradients of outputs that are pieces of self along `dim`, joined back: PyTorch's split_backward
// and unbind_backward (stack when the pieces dropped the dim).
Tensor join_pieces(const std::vector<Tensor>& grads, const std::vector<Dims>& piece_sizes, int64_t dim, bool stacked);
struct UnbindBackward0 {
  static constexpr const char* name = "UnbindBackward0";
  static constexpr bool takes_all_outputs = true;
  int64_t dim = 0;
  std::vector<Dims> piece_sizes;
  Grads apply(const std::vector<Tensor>& g, Needs) const { return {join_pieces(g, piece_sizes, dim, true)}; }
};
struct SplitBackward0 {  // split(split_size) and chunk
  static constexpr const char* name = "SplitBackward0";
  static constexpr bool takes_all_outputs = true;
  int64_t dim = 0;
  std::vector<Dims> piece_sizes;
  Grads apply(const std::vector<Tensor>& g, Needs) const { return {join_pieces(g, piece_sizes, dim, false)}; }
};
struct SplitWithSizesBackward0 : SplitBackward0 {
  static constexpr const char* name = "SplitWithSizesBackward0";
};
struct UnsafeSplitBackward0 : SplitBackward0 {  // outputs that autograd does not treat as views
  static constexpr const char* name = "UnsafeSplitBackward0";
};
struct UnsafeSplitWithSizesBackward0 : SplitBackward0 {
  static constexpr const char* name = "UnsafeSplitWithSizesBackward0";
};
struct DiagonalBackward0 {  // g placed on the diagonal of a zero tensor
  static constexpr const char* name = "DiagonalBackward0";
  Dims self_sizes;
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  Grads apply(const Tensor& g, Needs) const {
    return {embedded(g, self_sizes, [&](const Tensor& t) { return diagonal(t, offset, dim1, dim2); })};
  }
};

// This section's nodes, for BackwardFunction (derivatives.h).
using ViewNodes =
    NodeList<ViewBackward0, ReshapeAliasBackward0, UnsafeViewBackward0, SqueezeBackward0, SqueezeBackward1,
             SqueezeBackward2, SqueezeBackward3, UnsqueezeBackward0, UnsqueezeBackward1, ExpandBackward0,
             TransposeBackward0, TBackward0, TransposeBackward1, TBackward1, PermuteBackward0, SelectBackward0,
             SliceBackward0, UnfoldBackward0, AsStridedBackward0, AsStridedBackward1, UnbindBackward0, SplitBackward0,
             SplitWithSizesBackward0, UnsafeSplitBackward0, UnsafeSplitWithSizesBackward0, DiagonalBackward0>;

}  // namespace ember::autograd
