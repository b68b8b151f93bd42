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
bool BelowAutograd::active() { return below_autograd; }

namespace {
// PyTorch's propagate_creation_meta: a view of a view keeps its base's restriction unless it has
// one of its own (a view made in inference mode stays one).
CreationMeta propagate(CreationMeta base, CreationMeta view) {
  return view == CreationMeta::Default ? base : base == CreationMeta::InferenceMode ? base : view;
}
}  // namespace

void record_view(const Tensor& view, const Tensor& base, bool multiple_outputs) {
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
  const CreationMeta made = InferenceMode::is_enabled() ? CreationMeta::InferenceMode
                            : !GradMode::is_enabled()   ? CreationMeta::NoGradMode
                            : multiple_outputs          ? CreationMeta::MultiOutputNode
                                                        : CreationMeta::Default;
  meta.creation_meta = base_is_view ? propagate(base_meta->creation_meta, made) : made;
}

void check_view_rebase(const AutogradMeta& meta, bool indirect) {
  const CreationMeta creation_meta = meta.creation_meta;
  if (creation_meta == CreationMeta::Default) return;
  const char* modified = indirect ? "its base or another view of its base has been" : "is being";
  std::string message =
      meta.grad_fn ? str_cat("Output ", meta.output_nr, " of ", meta.grad_fn->name(), " is a view and ", modified,
                             " modified inplace.")
      : creation_meta == CreationMeta::InferenceMode
          ? str_cat("A view was created in inference mode and ", modified, " modified inplace in normal mode.")
          : str_cat("A view was created in no_grad mode and ", modified, " modified inplace with grad mode enabled.");
  switch (creation_meta) {
    case CreationMeta::MultiOutputNode:
      message += " This view is the output of a function that returns multiple views. Such functions do not allow the "
                 "output views to be modified inplace. You should replace the inplace operation by an out-of-place "
                 "one.";
      break;
    case CreationMeta::NoGradMode:
    case CreationMeta::InferenceMode:
      message +=
          str_cat(" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                  "code by moving both the view and the inplace either both inside the ",
                  creation_meta == CreationMeta::NoGradMode ? "no_grad" : "inference_mode",
                  " block (if you don't want the inplace to be tracked) or both outside (if you want the inplace "
                  "to be tracked).");
      break;
    case CreationMeta::InCustomFunction:
      message += " This view was created inside a custom Function (or because an input was returned as-is) and the "
                 "autograd logic to handle view+inplace would override the custom backward associated with the "
                 "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
                 "cloning the output of the custom Function.";
      break;
    case CreationMeta::Default: break;
  }
  throw Error(message);
}

void check_inplace(const Tensor& self, bool any_requires_grad) {
  if (!GradMode::is_enabled() || !any_requires_grad) return;
  const AutogradMeta* meta = self.impl()->autograd_meta.get();
  if (meta && meta->is_view) {
    check_view_rebase(*meta, /*indirect=*/false);
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
  if (node) rebase_history(self, node, 0);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  AutogradMeta* meta = self.impl()->autograd_meta.get();
  if (!meta || !meta->is_view) {
    set_history(self, node, output_nr);  // the tensor's history now ends in the in-place op
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
