// Saving a tensor for backward: refuse inference tensors, remember the version, keep an output as
// a plain alias (Note [Saving an output]) or hand either to the pack hook (Note [Saving through
// hooks]); unpacking checks both things that can go wrong since.
#include "saved_tensor.h"

#include <utility>

#include "api/new_tensors.h"
#include "autograd_meta.h"
#include "core/grad_mode.h"
#include "node.h"
#include "profiler/memory_category.h"
#include "record.h"

namespace ember::autograd {

namespace {

void check_can_save(const Tensor& t) {
  EMBER_CHECK(!t.is_inference(), "Inference tensors cannot be saved for backward. To work around you can make a "
                                 "clone to get a normal tensor and use it in autograd.");
}

}  // namespace

SavedTensor::SavedTensor(const Tensor& input) {
  if (!input.defined()) return;
  check_can_save(input);
  saved_nothing_ = false;
  saved_version_ = input._version();
  if (const auto& hooks = current_saved_tensors_hooks()) [[unlikely]] {
    pack_with(hooks, input, input);
    return;
  }
  tensor_ = input;
  profiler::tag_memory(tensor_, profiler::MemoryCategory::Activation);  // what a node keeps for backward
}

SavedTensor SavedTensor::output(const Tensor& result, uint32_t output_nr) {
  check_can_save(result);
  SavedTensor saved;
  saved.saved_nothing_ = false;
  saved.saved_version_ = result._version();
  saved.is_output_ = true;
  saved.output_nr_ = output_nr;
  Tensor alias = internal::alias(result);  // detach() without an aten::detach event, as PyTorch saves
  if (const auto& hooks = current_saved_tensors_hooks()) [[unlikely]]
    saved.pack_with(hooks, alias, alias);
  else saved.tensor_ = std::move(alias);
  profiler::tag_memory(saved.tensor_, profiler::MemoryCategory::Activation);
  return saved;
}

void SavedTensor::pack_with(std::shared_ptr<const SavedTensorHooks> hooks, const Tensor& t, const Tensor& original) {
  NoGradGuard no_grad;  // as PyTorch packs: what the hook computes is not part of the graph
  const uint32_t version = t._version();
  auto packed = std::make_shared<Packed>(Packed{std::move(hooks), {}, {}, 0, {}});
  if (!is_output_) {  // the history the original had, given back to what unpack makes
    if (const AutogradMeta* meta = original.impl()->autograd_meta.get()) {
      packed->grad_fn = meta->grad_fn;
      packed->output_nr = meta->output_nr;
      if (!meta->grad_fn && original.requires_grad()) packed->grad_accumulator = gradient_edge(original).node;
    }
  }
  packed->value = packed->hooks->pack(t);
  EMBER_CHECK(version == t._version(),
              "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook can "
              "not be modified by in-place operations as this can lead to unexpected side-effects. Please open an "
              "issue if you need to perform in-place operations on the input to a pack hook.");
  packed_ = std::move(packed);
}

void SavedTensor::register_hooks(PackHook pack, UnpackHook unpack) {
  EMBER_CHECK(!packed_,
              "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
              "hooks is allowed at a time.");
  EMBER_CHECK(!saved_nothing_, "Calling register_hooks on a saved tensor with value None is forbidden");
  EMBER_CHECK(!released_,
              "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the "
              "graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
              "backward through the graph a second time or if you need to access saved variables after calling "
              "backward.");
  EMBER_CHECK(pack && unpack, "register_hooks: both a pack and an unpack hook are needed");
  Tensor original = std::exchange(tensor_, Tensor());
  try {
    // PyTorch packs a saved input detached, and an output as the alias it already is.
    pack_with(std::make_shared<const SavedTensorHooks>(SavedTensorHooks{std::move(pack), std::move(unpack)}),
              is_output_ ? original : internal::alias(original), original);
  } catch (...) {
    tensor_ = std::move(original);
    throw;
  }
}

Tensor SavedTensor::with_saved_history(const Tensor& unpacked) const {
  if (packed_->grad_fn) {
    Tensor t = internal::alias(unpacked);
    set_history(t, packed_->grad_fn, packed_->output_nr);
    return t;
  }
  if (const auto& accumulator = packed_->grad_accumulator) {  // a leaf: its gradients reach the saved leaf
    Tensor t = internal::alias(unpacked);
    t.requires_grad_();
    t.impl()->autograd_meta->borrowed_grad_accumulator = accumulator;
    return t;
  }
  return unpacked;
}

Tensor SavedTensor::unpack_for(const std::shared_ptr<Node>& node) const {
  Tensor t = unpack();
  if (!t.defined() || !is_output_ || !node) return t;
  Tensor with_history = internal::alias(t);  // a new handle: the saved one must not hold its node
  set_history(with_history, node, output_nr_);
  return with_history;
}

void SavedTensor::release() {
  tensor_ = Tensor();
  packed_.reset();
  released_ = true;
}

Tensor SavedTensor::unpack() const {
  EMBER_CHECK(!released_,
              "Trying to backward through the graph a second time (or directly access saved tensors after they have "
              "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
              "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
              "if you need to access saved tensors after calling backward.");
  if (packed_) [[unlikely]] {
    // No version check: the hooks hold whatever they made of the tensor (Note [Saving through hooks]).
    Tensor t = packed_->hooks->unpack(packed_->value);
    EMBER_CHECK(t.defined(),
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type NoneType");
    return with_saved_history(t);
  }
  const Tensor& t = tensor_;
  if (!t.defined()) return t;
  const uint32_t current = t._version();
  if (current == saved_version_) return t;
  std::string message = str_cat("one of the variables needed for gradient computation has been modified by an "
                                "inplace operation: [",
                                legacy_type_name(t.dtype(), !t.device().is_cpu()), " ", to_string(t.sizes()), "]");
  if (is_output_) message += str_cat(", which is output ", output_nr_, " of ", node_name_, ",");
  else if (auto fn = t.grad_fn())
    message += str_cat(", which is output ", t.impl()->autograd_meta->output_nr, " of ", fn->name(), ",");
  message += str_cat(" is at version ", current, "; expected version ", saved_version_,
                     " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                     "gradient, with torch.autograd.set_detect_anomaly(True).");
  throw Error(message);
}

}  // namespace ember::autograd
