// AccumulateGrad's apply (see accumulate_grad.h): the same rules on every device.
#include "accumulate_grad.h"

#include <mutex>

#include "autograd_meta.h"
#include "core/memory_layout.h"
#include "ops/new_tensors.h"

namespace ember::autograd {

namespace {
// PyTorch's "gradient layout contract": a leaf's .grad is laid out like the leaf when the leaf is
// dense (a transposed weight gets a transposed gradient), else row-major.
Dims contract_strides(const Tensor& leaf) {
  const Layout layout{leaf.sizes(), leaf.strides()};
  return is_non_overlapping_and_dense(layout) ? leaf.strides() : contiguous_strides(leaf.sizes());
}
bool obeys_layout_contract(const Tensor& grad, const Dims& strides) {
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (grad.size(d) != 1 && grad.stride(d) != strides[d]) return false;
    if (grad.size(d) == 1 && grad.stride(d) == 0) return false;
  }
  return true;
}
// Whether nothing but `t` itself refers to its bytes. A view also holds its base (autograd_meta's
// view_base, as PyTorch's _base), which shares the storage: the view is the sole owner when that
// base is held by nothing else.
bool sole_owner(const Tensor& t) {
  if (t.impl_ptr().use_count() != 1) return false;
  const AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (meta && meta->is_view) return meta->view_base.impl_ptr().use_count() == 1 && t.impl()->storage.use_count() == 2;
  return t.impl()->storage.use_count() == 1;
}
}  // namespace

Grads AccumulateGrad::apply(const Tensor& new_grad, Needs) const {
  Tensor leaf(variable);
  std::lock_guard<std::mutex> lock(leaf.impl()->autograd_meta->mutex);
  Tensor& grad = leaf.mutable_grad();
  if (!grad.defined()) {
    // Keep the incoming gradient only when nothing else refers to it and it has the contract's
    // layout (PyTorch steals it in that case, as new_grad.detach()); a formula may hand one tensor
    // to several inputs, e.g. add's {g, g}. Otherwise copy it into the contract's layout.
    const Dims strides = contract_strides(leaf);
    if (sole_owner(new_grad) && obeys_layout_contract(new_grad, strides)) {
      grad = new_grad.detach();
    } else {
      // PyTorch's clone_obey_contract: new_empty_strided, then copy_, whose write counts (version 1).
      grad = internal::new_empty_strided(new_grad.sizes(), strides, new_grad.dtype(), new_grad.device());
      grad.copy_(new_grad);
    }
  } else {
    grad.add_(new_grad);
  }
  return {};
}

}  // namespace ember::autograd
