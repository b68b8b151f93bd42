// The autograd graph. Each recorded op becomes a Node: its backward function (which PyTorch node
// it is and what it saved, derivatives.h), and one edge per tensor input of the forward op
// pointing at the node that will receive that input's gradient. Leaves that require grad are
// reached through an AccumulateGrad node that adds into `.grad`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "anomaly_mode.h"
#include "core/small_vector.h"
#include "derivatives.h"
#include "hooks.h"
#include "input_meta.h"

namespace ember::autograd {

// Every node kind's PyTorch name, in BackwardFunction's order.
std::vector<std::string> all_node_names();

// Where an input's gradient goes: input slot `input_nr` of `node` (null: no gradient needed).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
};

struct Node {
  template <typename Backward>
  explicit Node(Backward backward) : fn(std::in_place_type<Backward>, std::move(backward)) {}

  BackwardFunction fn;
  uint64_t sequence_nr = 0;  // creation order: among ready nodes, later ones run first
  // One edge and one input record per tensor input of the forward op, inline for the usual one or
  // two: a node is one allocation.
  SmallVector<Edge, 2> next_edges;
  SmallVector<InputMeta, 2> inputs;
  // How many gradients it receives: one per differentiable output of the forward op. Most ops
  // have one; unbind, split and a user's autograd Function may have several (output_nr tells a
  // tensor's place, autograd_meta.h), and each edge into the node names its slot (input_nr).
  uint32_t num_outputs = 1;

  // Hooks (hooks.h): those of the tensors this node made (Tensor::register_hook), one list per
  // output, and the node's own.
  std::vector<std::shared_ptr<HookList<TensorHook>>> tensor_pre_hooks;
  std::shared_ptr<HookList<PreHook>> pre_hooks;
  std::shared_ptr<HookList<PostHook>> post_hooks;
  RemovableHandle register_prehook(PreHook hook) { return add_hook(pre_hooks, std::move(hook)); }
  RemovableHandle register_hook(PostHook hook) { return add_hook(post_hooks, std::move(hook)); }
  std::shared_ptr<HookList<TensorHook>>& tensor_hooks(uint32_t output_nr) {
    if (tensor_pre_hooks.size() <= output_nr) tensor_pre_hooks.resize(output_nr + 1);
    return tensor_pre_hooks[output_nr];
  }
  // Where it was made, when it was made in anomaly mode (anomaly_mode.h); else null.
  std::shared_ptr<const ForwardTrace> forward_trace;
  // What a frontend keeps with the node for its users (Python's grad_fn.metadata dict): opaque here.
  std::shared_ptr<void> metadata;

  // PyTorch's node name: "AddmmBackward0", "torch::autograd::AccumulateGrad", "MyFunctionBackward".
  std::string name() const;
  // The gradients of the inputs given the gradients of the outputs (the node's formula): of those
  // `wanted`, or of every input whose edge leads somewhere.
  Grads apply(const std::vector<Tensor>& grad_outputs, const std::vector<bool>& wanted) const;
  Grads apply(const Tensor& grad_output) const;
  // PyTorch's grad_fn.next_functions: for each input of the forward op, the node its gradient goes
  // to and which of that node's inputs it is (AccumulateGrad for a leaf; null for an input that
  // needs no gradient). A copy, as libtorch's edge_list.
  std::vector<Edge> next_functions() const { return {next_edges.begin(), next_edges.end()}; }
  // Frees the saved tensors (backward without retain_graph).
  void release();
  // The tensors it still holds for its formula (none once released): PyTorch's grad_fn._saved_*.
  std::vector<Tensor> saved_tensors();
  // Its saved tensors as the node keeps them, each with the name PyTorch gives it (`self` for
  // grad_fn._saved_self), in the order saved: for reading and for register_hooks.
  std::vector<std::pair<std::string, SavedTensor*>> named_saved_tensors();
};

// The node whose formula the engine is running on this thread (null outside one), set for the
// formula's duration: under create_graph a formula that reads its own saved output gives that
// output its history back (formula_helpers.h, unpack_output).
const std::shared_ptr<Node>& running_node();
class RunningNode {
 public:
  explicit RunningNode(const std::shared_ptr<Node>& node);
  ~RunningNode();
  RunningNode(const RunningNode&) = delete;
  RunningNode& operator=(const RunningNode&) = delete;

 private:
  const std::shared_ptr<Node>* previous_;
};

// One saved tensor found by walking a graph, and the node that holds it.
struct SavedInGraph {
  std::string node;  // "AddmmBackward0"
  Tensor tensor;
};
// Every tensor the graph behind `root` keeps alive for backward, node by node from the root: what
// a kept loss holds on to (the chapter's memory leak). A tensor saved by two nodes is listed twice.
std::vector<SavedInGraph> saved_tensors_in_graph(const Tensor& root);

// Makes a gradient fit its input (PyTorch's validate_outputs): sums a broadcast gradient down to
// the input's sizes, then casts it to the input's dtype and device.
Tensor match_input(Tensor grad, const InputMeta& input, const Node& node, size_t index);
// The same for the gradient a backward starts with at output `index`, `root`: it must fit the sizes
// root's node recorded, which differ from root's only after root was resized (autograd_meta.h).
Tensor fit_root_gradient(const Tensor& root, Tensor gradient, size_t index);

}  // namespace ember::autograd
