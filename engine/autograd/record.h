// The autograd layer of an op call: decide whether to record, create the node with edges to the
// inputs' gradient receivers, and attach the node to the outputs. Ops call these right after
// their kernel ran; formulas.cpp says what the node does in backward. PyTorch's extra rules for
// views and in-place ops are in inplace.h.
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

// t's grad_fn, rebuilt first if t is a view whose base changed in place since it was set.
std::shared_ptr<Node> current_grad_fn(const Tensor& t);

// The receiver of a gradient for `t`: its grad_fn, or its leaf's AccumulateGrad node.
Edge gradient_edge(const Tensor& t);

// A node mapping a gradient of `view` (a view of `base` by layout) back onto `base`.
std::shared_ptr<Node> as_strided_node(const Tensor& view, const Tensor& base);

}  // namespace ember::autograd
