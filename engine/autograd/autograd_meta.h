// AutogradMeta: what a tensor carries only when it takes part in autograd. A leaf that requires
// grad has `requires_grad` and, after backward, `grad`; a result of a recorded op has `grad_fn`,
// the graph node that made it. The graph hangs off its outputs: a tensor that keeps its grad_fn
// keeps the whole graph (and every tensor it saved) alive, which is the chapter's memory leak.
#pragma once
#include <memory>
#include <mutex>

#include "core/tensor.h"
#include "hooks.h"

namespace ember::autograd {

struct Node;

// How a view was created, for PyTorch's rules on modifying views in place (inplace.h).
// A view made by an op with several outputs (unbind, split) or returned by a custom function may
// not be modified in place either: its node could not describe the change.
enum class CreationMeta : uint8_t { Default, NoGradMode, InferenceMode, MultiOutputNode, InCustomFunction };

struct AutogradMeta {
  AutogradMeta();  // both defined beside Node's type (autograd_meta.cpp)
  ~AutogradMeta();

  bool requires_grad = false;                   // leaves only; results require grad through grad_fn
  Tensor grad;                                  // leaves: the accumulated gradient
  std::shared_ptr<Node> grad_fn;                // results: the node that produced this tensor
  uint32_t output_nr = 0;                       // which output of grad_fn this tensor is
  std::shared_ptr<HookList<TensorHook>> hooks;  // leaves: run before accumulating (a result's are its grad_fn's)
  bool retains_grad = false;                    // results: retain_grad() was called
  uint64_t retains_grad_hook = 0;               // and the id of its hook in grad_fn's tensor hooks
  // Results resized below autograd (an out= call under no_grad): the sizes grad_fn made, which a
  // backward from this tensor must get a gradient for (PyTorch checks every root gradient against
  // the metadata its node recorded; only a resize makes that differ from the tensor's sizes). Null
  // otherwise: a pointer, so that every other tensor's autograd data stays as small as it was.
  std::unique_ptr<const Dims> sizes_when_recorded;

  // Views remember their base and how they were made. `view_version` is the shared version
  // counter's value when grad_fn was last set: an in-place change through the base or a sibling
  // view since then makes grad_fn stale, and it is rebuilt as an as_strided view of the base.
  bool is_view = false;
  Tensor view_base;
  CreationMeta creation_meta = CreationMeta::Default;
  uint32_t view_version = 0;

  // Leaves: the AccumulateGrad node that adds their gradients into `grad`, made by the first recorded
  // op that uses the leaf and kept as long as the leaf. An edge to it owns the leaf, not the node
  // (gradient_edge, record.cpp), as PyTorch's AccumulateGrad owns its variable: no cycle forms, and
  // an op after the first makes no node for the leaf. (PyTorch makes a new one whenever no graph
  // holds the last: so there, hooks registered on the node go with it.)
  std::unique_ptr<Node> grad_accumulator;
  std::once_flag grad_accumulator_made;
  // A leaf unpacked from a saved tensor's hooks stands in for the saved leaf: its gradients go to
  // that leaf's node (saved_tensor.cpp).
  std::shared_ptr<Node> borrowed_grad_accumulator;

  std::mutex mutex;  // guards grad when threads share a leaf
};

}  // namespace ember::autograd
