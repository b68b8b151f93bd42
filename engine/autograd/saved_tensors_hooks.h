// Saved-tensor hooks (PyTorch's torch.autograd.graph.saved_tensors_hooks): a way to decide what a
// graph keeps for backward. Every tensor a node saves is what the forward pass costs in memory
// until backward runs (the chapter's kept loss); with hooks, `pack` turns it into something else
// when it is saved (a bfloat16 copy, a file, nothing at all to recompute later) and `unpack` turns
// that back into a tensor when backward reads it.
//
// PyTorch 1.13's rules, which ember follows (tests/test_saved_tensors_hooks.cpp and
// test_saved_tensors_hooks_errors.cpp check them against its fixtures):
// - the hooks are a thread-local stack: nested guards use the inner pair only;
// - pack runs with grad mode off, once per saved tensor, when the node is recorded; it receives
//   the tensor itself for an input of the op (see saved_tensor.h for an output). A pack hook that
//   changes its input in place is refused;
// - unpack runs each time backward (or a look at the saved tensor) reads it, and must return a
//   defined tensor; a node's backward reads each of its saved tensors once, in the order it saved
//   them (derivatives.h's formulas are written so, and the ops save in PyTorch's order);
// - a tensor saved through hooks is no longer version-checked: an in-place change after the
//   tensor was saved is not detected (the hooks hold whatever they made of it);
// - after backward without retain_graph the packed value is freed, and reading it raises
//   "Trying to backward through the graph a second time ...";
// - disable_saved_tensors_hooks(message) forbids them: entering hooks then raises `message`.
// One difference: a 0-dim tensor that stands for a Python number (`a * 3`) is packed in ember in
// the op's dtype; PyTorch 1.13 packs it as int64 or float64, the number's own dtype.
#pragma once
#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/tensor.h"

namespace ember::autograd {

using PackHook = std::function<std::any(const Tensor&)>;
using UnpackHook = std::function<Tensor(const std::any&)>;

// A pair of hooks, shared by every tensor it packed (a packed value needs its unpack hook after
// the guard that set it is gone).
struct SavedTensorHooks {
  PackHook pack;
  UnpackHook unpack;
};

// While it lives, every tensor a node saves on this thread goes through `pack`, and `unpack`
// brings it back. PyTorch: `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):`.
class saved_tensors_hooks {  // NOLINT(readability-identifier-naming): PyTorch's name
 public:
  saved_tensors_hooks(PackHook pack, UnpackHook unpack);
  ~saved_tensors_hooks();
  saved_tensors_hooks(const saved_tensors_hooks&) = delete;
  saved_tensors_hooks& operator=(const saved_tensors_hooks&) = delete;
};

// While it lives, entering saved_tensors_hooks raises Error(message), and so does creating it
// while hooks are active. PyTorch: torch.autograd.graph.disable_saved_tensors_hooks(message).
class disable_saved_tensors_hooks {  // NOLINT(readability-identifier-naming): PyTorch's name
 public:
  explicit disable_saved_tensors_hooks(std::string message);
  ~disable_saved_tensors_hooks();
  disable_saved_tensors_hooks(const disable_saved_tensors_hooks&) = delete;
  disable_saved_tensors_hooks& operator=(const disable_saved_tensors_hooks&) = delete;

 private:
  std::optional<std::string> previous_;
};

// Whether saved_tensors_hooks may be entered on this thread (no disable_saved_tensors_hooks is in
// effect): PyTorch's torch._C._autograd._saved_tensors_hooks_is_enabled.
bool saved_tensors_hooks_enabled();

// The innermost hooks active on this thread, or null: the one check a saved tensor makes.
const std::shared_ptr<const SavedTensorHooks>& current_saved_tensors_hooks();

}  // namespace ember::autograd
