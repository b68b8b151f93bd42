// SavedTensor: a tensor a backward node keeps for its formula, plus the version it had when saved
// (saved_version). If an in-place op changes it before backward runs, the versions differ and
// unpack() raises PyTorch's "modified by an inplace operation" error instead of letting the
// formula compute a wrong gradient.
//
// Note [Saving an output]
// A node that saves its own output must not hold that output's TensorImpl (whose grad_fn is the
// node: a reference cycle that would never be freed). Like PyTorch, it keeps an alias of the same
// storage without autograd data, and remembers that it was output `output_nr` of its node.
//
// Note [Saving only what a gradient reads]
// As PyTorch's generated code does, a node keeps an input only when a gradient that reads it will
// be computed: a * b keeps b for a's gradient, so only when a requires grad, and a only when b
// does. Keeping more costs memory and can make a cycle that is never freed: in `x.add_(x * c)`
// with c a constant, a MulBackward0 that kept x would be reachable from x's own grad_fn, through
// the AddBackward0 that add_ gives x. (tests/test_saved_tensors.cpp checks every node's saves
// against PyTorch's.)
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace ember::autograd {

class SavedTensor {
 public:
  SavedTensor() = default;
  // An input of the op (undefined is allowed: an optional argument that was not given).
  // Raises "Inference tensors cannot be saved for backward..." for inference tensors.
  SavedTensor(const Tensor& input);  // NOLINT: implicit, so a node is built as {mat1, mat2}
  // The op's own output (see Note [Saving an output]).
  static SavedTensor output(const Tensor& result, uint32_t output_nr = 0);

  // The tensor, after checking it was neither freed by backward nor modified in place since.
  Tensor unpack() const;
  // The tensor as it is held, whatever its version: what the node keeps alive.
  const Tensor& held() const { return tensor_; }
  // Frees the tensor (backward without retain_graph); a later unpack() raises PyTorch's error.
  void release();
  bool is_released() const { return released_; }
  // The node that saved it, named in the error messages (set when the node is recorded).
  void set_node_name(const char* name) { node_name_ = name; }

 private:
  Tensor tensor_;
  uint32_t saved_version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  uint32_t output_nr_ = 0;
  const char* node_name_ = "";
};

// `t` saved when `needed`, else nothing (see Note [Saving only what a gradient reads]).
inline SavedTensor saved_if(bool needed, const Tensor& t) { return needed ? SavedTensor(t) : SavedTensor(); }

}  // namespace ember::autograd
