// The backward engine, without recursion (a 10 000-op chain must not overflow the stack):
// 1. walk the graph once to count, for every node, how many edges lead into it;
// 2. start from the root with the given gradient; a node runs when all of its incoming gradients
//    have arrived (its count drops to zero). Among ready nodes the most recently created runs
//    first, as in PyTorch. Each node's formula turns its output gradients into input gradients,
//    which are summed into the buffers of the next nodes. AccumulateGrad nodes add into `.grad`.
#include "engine.h"

#include <mutex>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd_meta.h"
#include "formulas.h"
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

void accumulate_grad(const Node& node, Tensor new_grad) {
  if (!new_grad.defined()) return;
  Tensor leaf(node.leaf);
  std::lock_guard<std::mutex> lock(leaf.impl()->autograd_meta->mutex);
  Tensor& grad = leaf.mutable_grad();
  if (!grad.defined()) {
    // Keep the incoming gradient only when nothing else refers to it (PyTorch steals it in that
    // case); a formula may hand one tensor to several inputs, e.g. add's {g, g}.
    const bool sole_owner = new_grad.impl_ptr().use_count() == 1 && new_grad.impl()->storage.use_count() == 1 &&
                            new_grad.is_contiguous();
    grad = sole_owner ? new_grad : new_grad.clone();
  } else {
    grad.add_(new_grad);
  }
}

void release(Node& node) {
  node.released = true;
  node.saved.clear();
  if (node.inner) release(*node.inner);
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
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;

  buffers[root_edge.node.get()].resize(root_edge.node->num_outputs);
  buffers[root_edge.node.get()][root_edge.input_nr] = gradient;
  ready.push(root_edge.node);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    std::vector<Tensor> grad_outputs = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    grad_outputs.resize(node->num_outputs);
    if (node->op == Op::AccumulateGrad) {
      accumulate_grad(*node, match_input(std::move(grad_outputs[0]), node->inputs[0], *node));
      continue;
    }
    std::vector<Tensor> grad_inputs = apply_formula(*node, grad_outputs);
    if (!retain_graph) release(*node);
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& edge = node->next_edges[i];
      if (!edge.node) continue;
      Tensor grad = i < grad_inputs.size() ? match_input(std::move(grad_inputs[i]), node->inputs[i], *node) : Tensor();
      if (grad.defined()) {
        std::vector<Tensor>& buffer = buffers[edge.node.get()];
        buffer.resize(edge.node->num_outputs);
        Tensor& slot = buffer[edge.input_nr];
        slot = slot.defined() ? slot + grad : std::move(grad);
      }
      if (--dependencies[edge.node.get()] == 0) ready.push(edge.node);
    }
  }
}

}  // namespace ember::autograd
