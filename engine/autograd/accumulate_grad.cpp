// AccumulateGrad's apply (see accumulate_grad.h): the same rules on every device.
#include "accumulate_grad.h"

#include <mutex>

#include "api/new_tensors.h"
#include "autograd_meta.h"
#include "core/grad_mode.h"
#include "core/memory_layout.h"
#include "profiler/memory_category.h"
#include "trace_lines.h"

namespace ember::autograd {

namespace {
// PyTorch's "gradient layout contract": a leaf's .grad is laid out like the leaf when the leaf is
// dense (a transposed weight gets a transposed gradient), else row-major.
bool is_dense(const Tensor& leaf) { return is_non_overlapping_and_dense(Layout{leaf.sizes(), leaf.strides()}); }
bool obeys_layout_contract(const Tensor& grad, const Dims& strides) {
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (grad.size(d) != 1 && grad.stride(d) != strides[d]) return false;
    if (grad.size(d) == 1 && grad.stride(d) == 0) return false;
  }
  return true;
}

// The dispatch trace's line: "t9.grad = t31: t30 itself, detached (no copy)".
void traced(const Tensor& leaf, const Tensor& new_grad, trace_lines::Accumulation how) {
  if (trace::enabled()) [[unlikely]]
    trace_lines::accumulated(leaf, new_grad, how);
}
}  // namespace

Grads AccumulateGrad::apply(const Tensor& new_grad, Needs) const {
  const Tensor leaf(variable.lock());
  accumulate_grad(leaf, new_grad);
  profiler::tag_memory(leaf, profiler::MemoryCategory::Parameter);  // a leaf that learns
  return {};
}

void accumulate_grad(const Tensor& leaf, const Tensor& new_grad) {
  leaf.mutable_grad();  // makes the autograd data, and its mutex
  std::lock_guard<std::mutex> lock(leaf.impl()->autograd_meta->mutex);
  Tensor& grad = leaf.mutable_grad();
  if (!grad.defined()) {
    // Keep the incoming gradient when no other handle refers to it and it has the contract's layout
    // (PyTorch steals it then, as new_grad.detach()); a formula may hand one tensor to several
    // inputs, e.g. add's {g, g}. Otherwise copy it into the contract's layout. As in PyTorch only
    // the handle is counted, not its storage: a view of the gradient a user passed to backward
    // (`x.view(12).backward(g)`) is kept, so x.grad shares g's bytes and version counter.
    const bool dense_leaf = is_dense(leaf);
    const Dims strides = dense_leaf ? leaf.strides() : contiguous_strides(leaf.sizes());
    // Under create_graph (grad mode on) the gradient is copied, so that .grad has a history of its own.
    if (!GradMode::is_enabled() && new_grad.impl_ptr().use_count() == 1 && obeys_layout_contract(new_grad, strides)) {
      grad = new_grad.detach();
      traced(leaf, new_grad, trace_lines::Accumulation::Kept);
    } else if (dense_leaf) {
      // PyTorch's clone_obey_contract: new_empty_strided in the leaf's sizes and strides, then copy_,
      // whose write counts (version 1). A leaf resized since the graph recorded it (an out= call
      // under no_grad) no longer fits: copy_ raises, and .grad stays undefined.
      Tensor copy = internal::new_empty_strided(leaf.sizes(), strides, new_grad.dtype(), new_grad.device());
      copy.copy_(new_grad);
      grad = copy;
      traced(leaf, new_grad, trace_lines::Accumulation::CopiedInLayout);
    } else {
      grad = new_grad.clone(MemoryFormat::Contiguous);  // clone_obey_contract's other branch: version 0
      traced(leaf, new_grad, trace_lines::Accumulation::CopiedContiguous);
    }
  } else if (!GradMode::is_enabled()) {
    grad.add_(new_grad);
    traced(leaf, new_grad, trace_lines::Accumulation::AddedInPlace);
  } else {  // under create_graph a new tensor, so that the gradient's graph includes both terms
    grad = grad + new_grad;
    traced(leaf, new_grad, trace_lines::Accumulation::AddedOutOfPlace);
  }
  profiler::tag_memory(grad, profiler::MemoryCategory::Gradient);
}

}  // namespace ember::autograd
