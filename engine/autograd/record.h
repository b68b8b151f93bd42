// The autograd layer of an op call: decide whether to record, create the node with edges to the
// inputs' gradient receivers, and attach the node to the outputs. Ops call these right after
// their kernel ran; formulas.cpp says what the node does in backward.
#pragma once
#include <initializer_list>
#include <memory>

#include "node.h"

namespace ember::autograd {

// True when grad mode is on and any defined input requires grad: the op must record a node.
bool needs_grad(std::initializer_list<const Tensor*> inputs);
bool needs_grad(const std::vector<Tensor>& inputs);

// A node for `op` with one edge per input (undefined or non-grad inputs get an empty edge).
std::shared_ptr<Node> make_node(Op op, std::initializer_list<const Tensor*> inputs);
std::shared_ptr<Node> make_node(Op op, const std::vector<Tensor>& inputs);

// Makes `output` a non-leaf result of `node` (output slot `output_nr`).
void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr = 0);

// For a view op: records the view relation (base, creation mode) the in-place rules need.
void record_view(const Tensor& view, const Tensor& base);

// Checks PyTorch's rules before an in-place op writes into `self` (leaf, views, inference).
void check_inplace(const Tensor& self);
// After an in-place op: bump the version and, when recording, make `node` self's new grad_fn.
void finish_inplace(const Tensor& self, const std::shared_ptr<Node>& node);

// The receiver of a gradient for `t`: its grad_fn, or its leaf's AccumulateGrad node.
Edge gradient_edge(const Tensor& t);

}  // namespace ember::autograd
