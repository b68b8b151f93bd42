// The backward engine: runs the graph from its roots to the leaves.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "node.h"

namespace ember::autograd {

// Runs the graph from each of `roots` with its gradient (grad.h's backward and grad call it). With
// no `inputs`: every node runs and the leaves accumulate into .grad. Otherwise returns the gradient that arrives at
// each input edge (undefined when none does), runs only the nodes that lead to one, and touches no .grad. create_graph
// runs the formulas with grad mode on, so the gradients have a graph of their own.
std::vector<Tensor> run_graph(const std::vector<Edge>& roots, const std::vector<Tensor>& gradients,
                              const std::vector<Edge>& inputs, bool retain_graph, bool create_graph);

}  // namespace ember::autograd
