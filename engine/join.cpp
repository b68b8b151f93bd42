// Joining tensors: cat along an existing dimension, stack along a new one. The result dtype is
// the promotion of all inputs; each input is copied into its slice of the result.
#include "autograd/record.h"
#include "internal.h"
#include "kernels/copy.h"
#include "ops.h"

namespace ember {

using autograd::Op;

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // Like PyTorch, 1-D empty tensors are skipped (a legacy rule that lets `cat([empty, x])` work).
  const Tensor* reference = nullptr;
  DType result = tensors[0].dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    result = promote_types(result, t.dtype());
    if (!(t.dim() == 1 && t.numel() == 0) && !reference) reference = &t;
  }
  if (!reference) reference = &tensors[0];
  const int64_t d = wrap_dim(dim, reference->dim());
  Dims out_sizes = reference->sizes();
  out_sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.dim() == 1 && t.numel() == 0 && &t != reference) continue;
    EMBER_CHECK(t.dim() == reference->dim(), "Tensors must have same number of dimensions: got ", reference->dim(),
                " and ", t.dim());
    for (int64_t k = 0; k < t.dim(); ++k)
      EMBER_CHECK(k == d || t.size(k) == reference->size(k), "Sizes of tensors must match except in dimension ", d,
                  ". Expected size ", reference->size(k), " but got size ", t.size(k), " for tensor number ", i,
                  " in the list.");
    internal::check_same_device(*reference, t);
    out_sizes[d] += t.size(d);
  }
  internal::check_cpu(*reference, "cat");
  Tensor out = internal::new_empty(out_sizes, result);
  int64_t offset = 0;
  std::vector<Dims> input_sizes;
  for (const Tensor& t : tensors) {
    input_sizes.push_back(t.sizes());
    if (t.dim() == 1 && t.numel() == 0 && &t != reference) continue;
    kernels::copy(internal::alias(out).narrow(d, offset, t.size(d)), t);
    offset += t.size(d);
  }
  if (autograd::needs_grad(tensors)) {
    auto node = autograd::make_node(Op::Cat, tensors);
    node->args.dim = d;
    node->args.input_sizes = std::move(input_sizes);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
                to_string(tensors[0].sizes()), " at entry 0 and ", to_string(tensors[i].sizes()), " at entry ", i);
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> unsqueezed;
  for (const Tensor& t : tensors) unsqueezed.push_back(internal::alias(t).unsqueeze(d));
  Tensor out = cat(unsqueezed, d);
  if (autograd::needs_grad(tensors)) {
    auto node = autograd::make_node(Op::Stack, tensors);
    node->args.dim = d;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
