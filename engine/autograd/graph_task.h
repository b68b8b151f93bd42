// What one backward run needs to know about the graph before it starts (PyTorch's GraphTask): how
// many edges lead into each node, so that a node runs only once all of its gradients have arrived,
// and, for autograd::grad, which nodes lead to the inputs whose gradients are asked for. Nodes
// that lead to none of them are not run at all: autograd::grad neither computes what it would
// throw away nor touches any leaf's .grad.
#pragma once
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "node.h"

namespace ember::autograd {

struct GraphTask {
  std::unordered_map<Node*, int> dependencies;  // edges into each node from the nodes reachable from the roots
  // backward() runs every node it reaches. autograd::grad keeps the gradient arriving at each
  // captured node (its inputs) and runs only the nodes with an edge leading towards one.
  bool runs_every_node = true;
  std::unordered_set<Node*> captured;
  std::unordered_set<Node*> needed;
  bool runs(Node* node) const { return runs_every_node || needed.count(node) > 0; }
};

// Counts the dependencies below `roots` and, when `captured` is not empty, marks the nodes with an
// edge leading to a captured node, directly or through other nodes.
GraphTask make_graph_task(const std::vector<Node*>& roots, const std::vector<Node*>& captured);

}  // namespace ember::autograd
