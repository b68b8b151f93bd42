// CopySlices and the gradient of an as_strided view (see copy_slices.h). Both work in a zero buffer
// that covers the view and its base, addressed in storage coordinates.
#include "copy_slices.h"

#include <algorithm>

#include "core/grad_mode.h"
#include "node.h"

namespace ember::autograd {

// A zero buffer covering both layouts, so a view's region and its base can be addressed in the
// same storage coordinates whatever the base's own strides are.
namespace {

Tensor storage_buffer(const Geometry& a, const Geometry& b, const Tensor& like) {
  auto last = [](const Geometry& g) {
    int64_t index = g.offset;
    for (int64_t d = 0; d < g.sizes.size(); ++d) index += std::max<int64_t>(g.sizes[d] - 1, 0) * g.strides[d];
    return index;
  };
  return zeros({std::max(last(a), last(b)) + 1}, like.options());
}

// Under create_graph the buffer has a history, and the views of it must record theirs.
Tensor strided(const Tensor& buffer, const Geometry& g) {
  return GradMode::is_enabled() ? as_strided_recorded(buffer, g.sizes, g.strides, g.offset)
                                : as_strided(buffer, g.sizes, g.strides, g.offset);
}

}  // namespace

// The gradient of a view taken by layout alone: g placed in the view's region of a zero base. As
// ATen's as_strided_backward, the result is the base's view of the buffer, at version 2 (its
// at::zeros and the copy_ each count a write), or plain zeros (version 1) when either is empty.
Tensor as_strided_backward(const Tensor& g, const Geometry& view, const Geometry& base) {
  if (product(view.sizes) == 0 || product(base.sizes) == 0) return counted_writes(zeros(base.sizes, g.options()), 1);
  Tensor buffer = counted_writes(storage_buffer(view, base, g), 1);
  strided(buffer, view).copy_(g);
  return strided(buffer, base);
}

Grads CopySlices::apply(const Tensor& g, Needs) const {
  Tensor buffer = storage_buffer(view, base, g);
  strided(buffer, base).copy_(g);
  Tensor region = strided(buffer, view);
  Grads inner_grads = fn->apply(region.clone());
  for (size_t i = 0; i < inner_grads.size() && i < fn->inputs.size(); ++i)
    inner_grads[i] = match_input(inner_grads[i], fn->inputs[i], *fn, i);
  if (inner_grads[0].defined()) region.copy_(inner_grads[0]);
  else region.zero_();
  Grads result{strided(buffer, base)};  // at version 2, after its two copy_ writes, as PyTorch's
  result.insert(result.end(), inner_grads.begin() + 1, inner_grads.end());
  return result;
}

}  // namespace ember::autograd
