// PyTorch's view and in-place rules (see inplace.h).
#include "inplace.h"

#include "autograd_meta.h"
#include "core/grad_mode.h"
#include "core/inference_mode.h"
#include "record.h"

namespace ember::autograd {

namespace {
thread_local bool below_autograd = false;
}  // namespace

BelowAutograd::BelowAutograd() : previous_(below_autograd) { below_autograd = true; }
BelowAutograd::~BelowAutograd() { below_autograd = previous_; }

void record_view(const Tensor& view, const Tensor& base) {
  // Views of inference tensors are not tracked; nor are views an op makes inside its compute.
  if (view.is_inference() || below_autograd) return;
  AutogradMeta* base_meta = base.impl()->autograd_meta.get();
  const bool base_is_view = base_meta && base_meta->is_view;
  const Tensor& root = base_is_view ? base_meta->view_base : base;
  auto& meta_slot = view.impl()->autograd_meta;
  if (!meta_slot) meta_slot.reset(new AutogradMeta());
  AutogradMeta& meta = *meta_slot;
  meta.is_view = true;
  meta.view_base = root;
  meta.view_version = view._version();
  meta.creation_meta = InferenceMode::is_enabled() ? CreationMeta::InferenceMode
                       : !GradMode::is_enabled()   ? CreationMeta::NoGradMode
                       : base_is_view              ? base_meta->creation_meta
                                                   : CreationMeta::Default;
}

void check_view_rebase(CreationMeta creation_meta, bool indirect) {
  if (creation_meta == CreationMeta::Default) return;
  const char* modified = indirect ? "its base or another view of its base has been" : "is being";
  if (creation_meta == CreationMeta::NoGradMode)
    throw Error(str_cat("A view was created in no_grad mode and ", modified,
                        " modified inplace with grad mode enabled. Given that this use case is ambiguous and "
                        "error-prone, it is forbidden. You can clarify your code by moving both the view and the "
                        "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) "
                        "or both outside (if you want the inplace to be tracked)."));
  throw Error(str_cat("A view was created in inference mode and ", modified,
                      " modified inplace in normal mode. Given that this use case is ambiguous and error-prone, it "
                      "is forbidden. You can clarify your code by moving both the view and the inplace either both "
                      "inside the inference_mode block (if you don't want the inplace to be tracked) or both outside "
                      "(if you want the inplace to be tracked)."));
}

void check_inplace(const Tensor& self, bool any_requires_grad) {
  if (!GradMode::is_enabled() || !any_requires_grad) return;
  const AutogradMeta* meta = self.impl()->autograd_meta.get();
  if (meta && meta->is_view) {
    check_view_rebase(meta->creation_meta, /*indirect=*/false);
    EMBER_CHECK(!self.requires_grad() || !meta->view_base.is_leaf(),
                "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  // A leaf here is what PyTorch's C++ is_leaf() reads: no grad_fn recorded yet. A view whose base
  // came to require grad after the view was made has none until its grad_fn is read (which
  // rebuilds it, record.cpp), so until then it counts as a leaf and is refused, as in PyTorch.
  const bool leaf = !meta || !meta->grad_fn;
  EMBER_CHECK(!self.requires_grad() || !leaf,
              "a leaf Variable that requires grad is being used in an in-place operation.");
}

void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node) {
  // PyTorch refuses an inference tensor here, when bumping its version: after the op has written it,
  // so the op's own errors (a dtype that cannot be cast, say) come first.
  EMBER_CHECK(!self.is_inference() || InferenceMode::is_enabled(),
              "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
              "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
              "details.");
  self.impl()->version_counter->bump();
  if (!node) return;
  AutogradMeta* meta = self.impl()->autograd_meta.get();
  if (!meta || !meta->is_view) {
    set_history(self, node);  // the tensor's history now ends in the in-place op
    return;
  }
  // In-place on a view: see Note [In-place on views].
  const Tensor& base = meta->view_base;
  auto copy_slices = new_node(CopySlices{geometry_of(self), geometry_of(base), node});
  add_input(*copy_slices, base);
  for (size_t i = 1; i < node->next_edges.size(); ++i) {  // the op's other inputs keep their edges
    copy_slices->next_edges.push_back(node->next_edges[i]);
    copy_slices->inputs.push_back(node->inputs[i]);
  }
  set_history(base, copy_slices);
  set_history(self, as_strided_node(self, base));
}

}  // namespace ember::autograd
