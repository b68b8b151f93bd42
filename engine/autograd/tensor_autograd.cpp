// Tensor's autograd methods: requires_grad and its rules, .grad, grad_fn, is_leaf, detach, data,
// the view queries, hooks and retain_grad, and backward's argument checks.
#include "autograd_meta.h"
#include "core/inference_mode.h"
#include "core/warning.h"
#include "engine.h"
#include "node.h"
#include "ops/new_tensors.h"
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
  if (auto fn = grad_fn()) return autograd::add_hook(fn->tensor_pre_hooks, autograd::TensorHook(std::move(hook)));
  return autograd::add_hook(impl_->autograd_meta->hooks, autograd::TensorHook(std::move(hook)));
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "can't retain_grad on Tensor that has requires_grad=False");
  autograd::AutogradMeta& meta = *impl_->autograd_meta;
  if (is_leaf() || meta.retains_grad) return;
  meta.retains_grad = true;
  // A hook like any other (it runs in registration order). It holds the tensor weakly: the graph
  // must not keep alive a tensor the user has dropped.
  register_hook([weak = std::weak_ptr<TensorImpl>(impl_)](const Tensor& grad) {
    if (auto impl = weak.lock()) {
      Tensor& kept = impl->autograd_meta->grad;
      kept = kept.defined() ? kept + grad : grad.is_contiguous() ? grad.clone() : grad.contiguous();
    }
    return Tensor();
  });
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

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

Tensor Tensor::data() const {
  const TensorImpl& impl = checked();
  return Tensor(std::make_shared<TensorImpl>(impl.storage, impl.sizes, impl.strides, impl.storage_offset, impl.dtype,
                                             /*tracks_version=*/!impl.is_inference()));
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
  impl.storage = source.storage;
  impl.version_counter = source.version_counter;
  impl.sizes = source.sizes;
  impl.strides = source.strides;
  impl.storage_offset = source.storage_offset;
  impl.dtype = source.dtype;
  impl.numel = source.numel;
  impl.is_contiguous = source.is_contiguous;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  EMBER_CHECK(requires_grad(), "element 0 of tensors does not require grad and does not have a grad_fn");
  Tensor seed = gradient;
  if (!seed.defined()) {
    EMBER_CHECK(numel() == 1, "grad can be implicitly created only for scalar outputs");
    seed = ones_like(*this);
  } else {
    EMBER_CHECK(seed.sizes() == sizes(), "Mismatch in shape: grad_output[0] has a shape of torch.Size(",
                to_string(seed.sizes()), ") and output[0] has a shape of torch.Size(", to_string(sizes()), ").");
  }
  autograd::run_backward(*this, internal::alias(seed), retain_graph);  // detached, without an aten::detach event
}

}  // namespace ember
