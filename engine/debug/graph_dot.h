// The autograd graph as a picture: Graphviz dot text in torchviz's style (make_dot with
// show_saved=True), so that the graph a loss holds, and what each node keeps for backward, can be
// seen instead of imagined. Reading it: grey boxes are nodes, named as PyTorch names them
// (AddmmBackward0, AccumulateGrad); arrows run from a node to the node that consumes its output
// (the forward direction, as torchviz draws them); blue boxes are the leaves the gradients
// accumulate into, with their names from named_parameters() and their shapes; orange boxes are
// the tensors a node saved (grad_fn._saved_<name>), joined to it by a line; green boxes are the
// roots (a view root's base in darker green, joined by a dotted line).
// `dot -Tpng graph.dot -o graph.png` draws it (Debian's graphviz package).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "autograd/node.h"
#include "core/named_tensor.h"
#include "core/tensor.h"

namespace ember::autograd {

// The graph behind `root` (or behind every tensor of `roots`, one picture) as dot text. Nodes are
// numbered in the order they are first reached, so the same graph always gives the same text.
// Reading the saved tensors calls the unpack hook of any that were saved through hooks; a node
// freed by backward shows no saved tensors.
std::string to_dot(const Tensor& root, const NamedTensors& named_parameters = {});
std::string to_dot(const std::vector<Tensor>& roots, const NamedTensors& named_parameters = {});

}  // namespace ember::autograd
