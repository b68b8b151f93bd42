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
//
// Note [Saving through hooks]
// While saved_tensors_hooks are active (saved_tensors_hooks.h), a SavedTensor keeps only what the
// pack hook returned, and unpack() calls the unpack hook. An output is handed to pack as the alias
// it would have kept: PyTorch hands over the output itself, but a packed value holding the output
// would hold its grad_fn, which holds the packed value, a cycle that C++ never frees.
#pragma once
#include <any>
#include <cstdint>
#include <memory>
#include <tuple>

#include "core/tensor.h"
#include "saved_tensors_hooks.h"

namespace ember::autograd {

struct Node;

class SavedTensor {
 public:
  SavedTensor() = default;
  // An input of the op (undefined is allowed: an optional argument that was not given).
  // Raises "Inference tensors cannot be saved for backward..." for inference tensors.
  SavedTensor(const Tensor& input);  // NOLINT: implicit, so a node is built as {mat1, mat2}
  // The op's own output (see Note [Saving an output]).
  static SavedTensor output(const Tensor& result, uint32_t output_nr = 0);

  // Packs this one saved tensor with `pack` and reads it back with `unpack` from now on (PyTorch's
  // grad_fn._raw_saved_self.register_hooks); pack receives the tensor without its history.
  void register_hooks(PackHook pack, UnpackHook unpack);

  // The tensor, after checking it was neither freed by backward nor modified in place since (the
  // second is not checked for a tensor saved through hooks: it returns what unpack makes, with the
  // history the saved input had, so that a second derivative reaches that input).
  Tensor unpack() const;
  // The same with its place in the graph, as PyTorch's SavedVariable::unpack(saved_for): an output
  // of `node` gets `node` back as its grad_fn (grad_fn._saved_result, ctx.saved_tensors).
  Tensor unpack_for(const std::shared_ptr<Node>& node) const;
  // The tensor as it is held, whatever its version: what the node keeps alive.
  const Tensor& held() const { return tensor_; }
  // Frees the tensor (backward without retain_graph); a later unpack() raises PyTorch's error.
  void release();
  bool is_released() const { return released_; }
  // The version its tensor had when saved; unpack() requires the same.
  uint32_t saved_version() const { return saved_version_; }
  // Whether it is its node's output `output_nr()` (Note [Saving an output]).
  bool is_output() const { return is_output_; }
  uint32_t output_nr() const { return output_nr_; }
  // Whether nothing was saved (an optional argument that was not given, or None).
  bool saved_nothing() const { return saved_nothing_; }
  // Whether a pair of hooks holds it (Note [Saving through hooks]).
  bool has_hooks() const { return packed_ != nullptr; }
  // The node that saved it, named in the error messages (set when the node is recorded).
  void set_node_name(const char* name) { node_name_ = name; }

 private:
  struct Packed {  // what a pack hook made of the tensor, the hooks that bring it back, and its history
    std::shared_ptr<const SavedTensorHooks> hooks;
    std::any value;
    std::shared_ptr<Node> grad_fn;  // an input's grad_fn (and which output of it the input was)
    uint32_t output_nr = 0;
    // A leaf's, where its gradients go: an edge's pointer, which owns the leaf (record.cpp's
    // gradient_edge). No cycle: the leaf does not hold the node that saved it.
    std::shared_ptr<Node> grad_accumulator;
  };
  // Packs `t`; an input's unpacked value gets `original`'s history (t may be its detached alias).
  void pack_with(std::shared_ptr<const SavedTensorHooks> hooks, const Tensor& t, const Tensor& original);
  Tensor with_saved_history(const Tensor& unpacked) const;  // an unpacked input's history, as it was saved

  Tensor tensor_;
  std::shared_ptr<Packed> packed_;  // set instead of tensor_ when saved through hooks
  uint32_t saved_version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  bool saved_nothing_ = true;  // default-constructed, or an optional argument that was not given
  uint32_t output_nr_ = 0;
  const char* node_name_ = "";
};

// `t` saved when `needed`, else nothing (see Note [Saving only what a gradient reads]).
inline SavedTensor saved_if(bool needed, const Tensor& t) { return needed ? SavedTensor(t) : SavedTensor(); }

// A node's saved tensors, named once. In a node of derivatives.h, `EMBER_SAVED_TENSORS(self, other);`
// declares the fields `SavedTensor self, other;`, `saved()` (the list the engine frees after backward
// and the hooks see, in this order) and `saved_names`, "self, other": PyTorch's names for them, which
// Python reads as grad_fn._saved_self and the graph pictures print (graph_dot.h).
#define EMBER_SAVED_TENSORS(...)                 \
  SavedTensor __VA_ARGS__;                       \
  auto saved() { return std::tie(__VA_ARGS__); } \
  static constexpr const char* saved_names = #__VA_ARGS__

}  // namespace ember::autograd
