// Tensor's autograd methods: requires_grad and its rules, .grad, grad_fn, is_leaf, detach, data,
// the view queries, hooks and retain_grad, and backward's argument checks.
#include "api/new_tensors.h"
#include "autograd_meta.h"
#include "core/inference_mode.h"
#include "core/warning.h"
#include "engine.h"
#include "grad.h"
#include "node.h"
#include "record.h"

namespace ember {

bool Tensor::requires_grad() const {
  const autograd::AutogradMeta* meta = checked().autograd_meta.get();
  if (!meta) return false;
  if (meta->requires_grad || meta->grad_fn) return true;
  // A view made under no_grad of a tensor that requires grad still requires grad, as in PyTorch
  // (though no gradient flows through it: record.cpp, gradient_edge).
  return meta->is_view && meta->view_base.defined() && meta->view_base.requires_grad();
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  EMBER_CHECK(!(requires_grad && is_inference() && !InferenceMode::is_enabled()),
              "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  EMBER_CHECK(!requires_grad || is_floating_point(),
              "only Tensors of floating point and complex dtype can require gradients");
  if (!is_leaf()) {
    EMBER_CHECK(requires_grad, "you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().");
    return *this;
  }
  checked();
  auto& meta = impl_->autograd_meta;
  if (!meta) {
    if (!requires_grad) return *this;
    meta.reset(new autograd::AutogradMeta());
  }
  meta->requires_grad = requires_grad;
  return *this;
}

Tensor Tensor::grad() const {
  const autograd::AutogradMeta* meta = checked().autograd_meta.get();
  if (meta && meta->grad.defined()) return meta->grad;
  // A non-leaf's .grad is populated only by retain_grad().
  if (!is_leaf() && !retains_grad())
    warn_once("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
              "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
              "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
              "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
              "for more informations.");
  return Tensor();
}

RemovableHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  EMBER_CHECK(requires_grad(), "cannot register a hook on a tensor that doesn't require gradient");
  // A result's hooks run before its grad_fn (PyTorch's tensor pre-hooks); a leaf's before its
  // AccumulateGrad adds into .grad.
  if (auto fn = grad_fn())
    return autograd::add_hook(fn->tensor_hooks(impl_->autograd_meta->output_nr), autograd::TensorHook(std::move(hook)));
  return autograd::add_hook(impl_->autograd_meta->hooks, autograd::TensorHook(std::move(hook)));
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  autograd::AutogradMeta& meta = *impl_->autograd_meta;
  if (is_leaf() || meta.retains_grad) return;
  meta.retains_grad = true;
  autograd::attach_retains_grad_hook(*this, *grad_fn());
}

bool Tensor::retains_grad() const {
  const autograd::AutogradMeta* meta = checked().autograd_meta.get();
  return meta && meta->retains_grad;
}

Tensor& Tensor::mutable_grad() const {
  checked();
  auto& meta = impl_->autograd_meta;
  if (!meta) meta.reset(new autograd::AutogradMeta());
  return meta->grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  checked();
  return autograd::current_grad_fn(*this);
}

Tensor& Tensor::detach_() {
  EMBER_CHECK(!_is_view(), "Can't detach views in-place. Use detach() instead. If you are using "
                           "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
                           "gradients are views of DDP buckets, and hence detach_() cannot be called on these "
                           "gradients. To fix this error, please refer to the Optimizer.zero_grad() function in "
                           "torch/optim/optimizer.py as the solution.");
  if (autograd::AutogradMeta* meta = checked().autograd_meta.get()) {
    meta->requires_grad = false;
    meta->grad_fn.reset();
    meta->output_nr = 0;
  }
  return *this;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

Tensor Tensor::data() const {
  checked();
  return internal::alias_with_new_version(*this);
}

bool Tensor::_is_view() const {
  const autograd::AutogradMeta* meta = checked().autograd_meta.get();
  return meta && meta->is_view;
}

Tensor Tensor::_base() const { return _is_view() ? impl_->autograd_meta->view_base : Tensor(); }

void Tensor::set_data(const Tensor& new_data) const {
  TensorImpl& impl = *impl_;
  const TensorImpl& source = new_data.checked();
  checked();
  EMBER_CHECK(!requires_grad() || new_data.is_floating_point(),
              "data set to a tensor that requires gradients must be floating point or complex dtype");
  // The tensor keeps its own version counter, shared with its views (PyTorch's shallow_copy_from):
  // an in-place change through them after `x.data = y` still reaches what autograd saved of x.
  impl.storage = source.storage;
  impl.sizes = source.sizes;
  impl.strides = source.strides;
  impl.storage_offset = source.storage_offset;
  impl.dtype = source.dtype;
  impl.numel = source.numel;
  impl.is_contiguous = source.is_contiguous;
  // The leaf's AccumulateGrad node describes the tensor it feeds (where PyTorch would make a new
  // node: for a new dtype or device).
  if (impl.autograd_meta && impl.autograd_meta->grad_accumulator)
    impl.autograd_meta->grad_accumulator->inputs[0] = {impl.sizes, impl.dtype, impl.device()};
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      const std::vector<Tensor>& inputs) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph, inputs);
}

}  // namespace ember
