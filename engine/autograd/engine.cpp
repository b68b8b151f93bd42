// The backward engine, without recursion (a 10 000-op chain must not overflow the stack):
// 1. walk the graph once to count, for every node, how many edges lead into it;
// 2. start from the root with the given gradient; a node runs when all of its incoming gradients
//    have arrived (its count drops to zero). Among ready nodes the most recently created runs
//    first, as in PyTorch. Each node's formula (derivatives.h) turns its output gradient into
//    input gradients, which are summed into the buffers of the next nodes. AccumulateGrad nodes
//    add into `.grad`.
#include "engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "grad_mode.h"
#include "record.h"

namespace ember::autograd {

namespace {

std::unordered_map<Node*, int> count_dependencies(Node* root) {
  std::unordered_map<Node*, int> dependencies;
  std::vector<Node*> stack{root};
  std::unordered_set<Node*> seen{root};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& edge : node->next_edges) {
      if (!edge.node) continue;
      ++dependencies[edge.node.get()];
      if (seen.insert(edge.node.get()).second) stack.push_back(edge.node.get());
    }
  }
  return dependencies;
}

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr < b->sequence_nr;
  }
};

}  // namespace

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  const Edge root_edge = gradient_edge(root);
  NoGradGuard no_grad;  // formulas compute plain tensors
  std::unordered_map<Node*, int> dependencies = count_dependencies(root_edge.node.get());
  std::unordered_map<Node*, Tensor> buffers;  // the gradient of each node's output, summed so far
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;

  buffers[root_edge.node.get()] = gradient;
  ready.push(root_edge.node);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    Tensor grad_output = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    Grads grad_inputs = node->apply(grad_output);
    grad_output = Tensor();
    if (!retain_graph) node->release();
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& edge = node->next_edges[i];
      if (!edge.node) continue;
      Tensor grad = i < grad_inputs.size() ? match_input(std::move(grad_inputs[i]), node->inputs[i], *node) : Tensor();
      if (grad.defined()) {
        Tensor& slot = buffers[edge.node.get()];
        slot = slot.defined() ? slot + grad : std::move(grad);
      }
      if (--dependencies[edge.node.get()] == 0) ready.push(edge.node);
    }
  }
}

}  // namespace ember::autograd
