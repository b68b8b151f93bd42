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

#include "derivatives.h"

namespace ember::autograd {

// Every node kind's PyTorch name, in BackwardFunction's order.
std::vector<std::string> all_node_names();

// Where an input's gradient goes: input slot `input_nr` of `node` (null: no gradient needed).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
};

// What backward needs to know about each input to hand it a gradient of the right kind: the
// engine reduces a broadcast gradient to `sizes` and casts it to `dtype` (PyTorch's InputMetadata).
struct InputMeta {
  Dims sizes;
  DType dtype = kFloat32;
  Device device;
};

struct Node {
  template <typename Backward>
  explicit Node(Backward backward) : fn(std::in_place_type<Backward>, std::move(backward)) {}

  BackwardFunction fn;
  uint64_t sequence_nr = 0;       // creation order: among ready nodes, later ones run first
  std::vector<Edge> next_edges;   // one per tensor input of the forward op
  std::vector<InputMeta> inputs;  // one per tensor input of the forward op

  // PyTorch's node name: "AddmmBackward0", "torch::autograd::AccumulateGrad", ...
  std::string name() const;
  // The gradients of the inputs given the gradient of the output (the node's formula).
  Grads apply(const Tensor& grad_output) const;
  // Frees the saved tensors (backward without retain_graph).
  void release();
  // The tensors it still holds for its formula (none once released): PyTorch's grad_fn._saved_*.
  std::vector<Tensor> saved_tensors();
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
Tensor match_input(Tensor grad, const InputMeta& input, const Node& node);

}  // namespace ember::autograd
