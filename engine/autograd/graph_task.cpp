// Preparing a backward run (see graph_task.h), without recursion: a 10 000-op chain must not
// overflow the stack.
#include "graph_task.h"

namespace ember::autograd {

namespace {

// Every node reachable from the roots, each listed after all the nodes that lead into it.
std::vector<Node*> topological_order(const std::vector<Node*>& roots, std::unordered_map<Node*, int> dependencies) {
  std::vector<Node*> order, ready;
  std::unordered_set<Node*> started;
  for (Node* root : roots)
    if (dependencies[root] == 0 && started.insert(root).second) ready.push_back(root);
  while (!ready.empty()) {
    Node* node = ready.back();
    ready.pop_back();
    order.push_back(node);
    for (const Edge& edge : node->next_edges)
      if (edge.node && --dependencies[edge.node.get()] == 0) ready.push_back(edge.node.get());
  }
  return order;
}

}  // namespace

GraphTask make_graph_task(const std::vector<Node*>& roots, const std::vector<Node*>& captured) {
  GraphTask task;
  task.runs_every_node = captured.empty();
  task.captured.insert(captured.begin(), captured.end());
  // Every node reached has an entry (the roots' may stay 0), so the map also tells which nodes
  // were seen: one hash table, filled without a set beside it.
  std::vector<Node*> stack;
  for (Node* root : roots)
    if (task.dependencies.try_emplace(root, 0).second) stack.push_back(root);
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& edge : node->next_edges) {
      if (!edge.node) continue;
      auto [entry, first_time] = task.dependencies.try_emplace(edge.node.get(), 0);
      ++entry->second;
      if (first_time) stack.push_back(edge.node.get());
    }
  }
  if (captured.empty()) return task;
  // A node is needed when one of its edges leads to a captured or a needed node: decided for each
  // node after every node below it, so in reverse topological order.
  const std::vector<Node*> order = topological_order(roots, task.dependencies);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    for (const Edge& edge : node->next_edges) {
      Node* next = edge.node.get();
      if (next && (task.captured.count(next) || task.needed.count(next))) {
        task.needed.insert(node);
        break;
      }
    }
  }
  return task;
}

}  // namespace ember::autograd
