// The backward engine, without recursion (a 10 000-op chain must not overflow the stack):
// 1. walk the graph once to count, for every node, how many edges lead into it;
// 2. start from the root with the given gradient; a node runs when all of its incoming gradients
//    have arrived (its count drops to zero). Among ready nodes the most recently created runs
//    first, as in PyTorch. Each node's formula (derivatives.h) turns its output gradient into
//    input gradients, which are summed into the buffers of the next nodes. AccumulateGrad nodes
//    add into `.grad`.
// While a profiler runs, each node shows as PyTorch shows it: an event
// "autograd::engine::evaluate_function: AddmmBackward0" around the node's own event
// "AddmmBackward0" (the ops of its formula inside) and the engine's fix-up of its gradients.
#include "engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/grad_mode.h"
#include "profiler/profiler.h"
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

// The node's name and the engine's event around it, string constants (one per node kind) so
// that recording copies nothing.
const char* name_of(const Node& node) {
  return std::visit([](const auto& fn) { return fn.name; }, node.fn);
}
const char* evaluate_function_name(const Node& node) {
  return std::visit(
      [](const auto& fn) {
        static const std::string name = std::string("autograd::engine::evaluate_function: ") + fn.name;
        return name.c_str();
      },
      node.fn);
}

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr < b->sequence_nr;
  }
};

}  // namespace

void run_backward(const Tensor& root, const Tensor& gradient, bool retain_graph) {
  const Edge root_edge = gradient_edge(root);
  // A view made under no_grad "requires grad" but leads nowhere (record.cpp, gradient_edge).
  EMBER_CHECK(root_edge.node, "element 0 of tensors does not require grad and does not have a grad_fn");
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
    profiler::Scope evaluate_function(evaluate_function_name(*node));
    Grads grad_inputs = [&] {
      profiler::Scope node_event(name_of(*node), grad_output);  // record_shapes: the gradient it is given
      return node->apply(grad_output);
    }();
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
