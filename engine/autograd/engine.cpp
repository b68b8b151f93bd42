// The backward engine, without recursion (a 10 000-op chain must not overflow the stack):
// 1. walk the graph once to count, for every node, how many edges lead into it (graph_task.h);
// 2. start from the roots with the given gradients; a node runs when all of its incoming
//    gradients have arrived (its count drops to zero). Among ready nodes the most recently created
//    runs first, as in PyTorch. Each node's formula (derivatives.h) turns its output gradient into
//    input gradients, which are summed into the buffers of the next nodes. AccumulateGrad nodes
//    add into `.grad`; autograd::grad instead keeps what arrives at its inputs. Hooks (hooks.h)
//    run around each formula; anomaly mode (anomaly_mode.h) checks what it returns.
// While a profiler runs, each node shows as PyTorch shows it: an event
// "autograd::engine::evaluate_function: AddmmBackward0" around the node's own event
// "AddmmBackward0" (the ops of its formula inside) and the engine's fix-up of its gradients.
#include "engine.h"

#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/dispatch_trace.h"
#include "core/grad_mode.h"
#include "graph_task.h"
#include "profiler/profiler.h"
#include "record.h"
#include "trace_lines.h"

namespace ember::autograd {

namespace {

// The node's name and the engine's event around it, string constants (one per node kind) so
// that recording copies nothing; a custom function's name lives as long as its node, which may be
// freed before the profile ends, so its events copy it (is_custom).
const char* name_of(const Node& node) {
  if (const auto* custom = std::get_if<CustomFunction>(&node.fn)) return custom->backward->name.c_str();
  return std::visit([](const auto& fn) { return fn.name; }, node.fn);
}
bool is_custom(const Node& node) { return std::holds_alternative<CustomFunction>(node.fn); }
const char* evaluate_function_name(const Node& node) {
  if (const auto* custom = std::get_if<CustomFunction>(&node.fn))
    return custom->backward->evaluate_function_name.c_str();
  return std::visit(
      [](const auto& fn) {
        static const std::string name = std::string("autograd::engine::evaluate_function: ") + fn.name;
        return name.c_str();
      },
      node.fn);
}

// One node's turn, as PyTorch's call_function: hooks may replace the gradients it receives, its
// formula runs, each gradient is fitted to its input (match_input), and post-hooks may replace them.
Grads evaluate(const std::shared_ptr<Node>& node, std::vector<Tensor> grad_outputs, const std::vector<bool>& wanted,
               bool retain_graph) {
  grad_outputs = run_pre_hooks(*node, std::move(grad_outputs));
  Grads grad_inputs = [&] {
    profiler::Scope node_event(name_of(*node), grad_outputs[0], is_custom(*node));  // record_shapes: its gradient
    RunningNode running(node);
    return node->apply(grad_outputs, wanted);
  }();
  if (!retain_graph) {
    if (trace::enabled()) [[unlikely]]
      trace_lines::node_released(*node);
    node->release();
  }
  grad_inputs.resize(node->next_edges.size());
  for (size_t i = 0; i < grad_inputs.size(); ++i)
    grad_inputs[i] = wanted[i] ? match_input(std::move(grad_inputs[i]), node->inputs[i], *node, i) : Tensor();
  grad_inputs = run_post_hooks(*node, std::move(grad_inputs), grad_outputs);
  if (trace::enabled()) [[unlikely]]
    trace_lines::node_gives(*node, grad_inputs);
  return grad_inputs;
}

// The dispatch trace's lines of one node's turn: "MulBackward0 runs, given t9 [4] float32", then
// everything the turn does, indented under it.
struct TracedTurn {
  TracedTurn(const Node& node, const std::vector<Tensor>& grad_outputs) : enclosing(name_of(node)) {
    trace_lines::node_runs(node, grad_outputs);
  }
  trace::Indent inside;
  trace::EnclosingOp enclosing;
};

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr < b->sequence_nr;
  }
};

}  // namespace

std::vector<Tensor> run_graph(const std::vector<Edge>& roots, const std::vector<Tensor>& gradients,
                              const std::vector<Edge>& inputs, bool retain_graph, bool create_graph) {
  std::vector<Node*> root_nodes, input_nodes;
  for (const Edge& root : roots) root_nodes.push_back(root.node.get());
  for (const Edge& input : inputs) input_nodes.push_back(input.node.get());
  GraphTask task = make_graph_task(root_nodes, input_nodes);
  AutoGradMode grad_mode(create_graph);  // without create_graph, formulas compute plain tensors
  // The gradient of each node's outputs, summed so far, one slot per output (Edge::input_nr).
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  auto add_to_buffer = [&](const Edge& edge, Tensor gradient) {
    std::vector<Tensor>& slots = buffers[edge.node.get()];
    if (slots.empty()) slots.resize(edge.node->num_outputs);
    Tensor& slot = slots[edge.input_nr];
    slot = slot.defined() ? slot + gradient : std::move(gradient);
    profiler::tag_memory(slot, profiler::MemoryCategory::AutogradDetail);  // memory_category.h
  };
  std::unordered_map<Node*, std::vector<Tensor>> captured;  // what arrived at autograd::grad's inputs
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;

  for (size_t i = 0; i < roots.size(); ++i) {
    if (trace::enabled()) [[unlikely]]
      trace::say("backward: starts at ", roots[i].node->name(), " with ", trace::name_of(gradients[i]), " (storage ",
                 trace::storage_name_of(gradients[i]), ")");
    add_to_buffer(roots[i], gradients[i]);
  }
  std::unordered_set<Node*> started;
  for (const Edge& root : roots)  // a root below another root waits for that one's gradient too
    if (task.dependencies[root.node.get()] == 0 && started.insert(root.node.get()).second) ready.push(root.node);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    std::vector<Tensor> grad_outputs = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    grad_outputs.resize(node->num_outputs);
    if (task.captured.count(node.get())) captured[node.get()] = grad_outputs;
    if (!task.runs(node.get())) continue;
    std::vector<bool> wanted(node->next_edges.size());
    for (size_t i = 0; i < wanted.size(); ++i) {
      Node* next = node->next_edges[i].node.get();
      wanted[i] = next && (task.runs(next) || task.captured.count(next));
    }
    profiler::Scope evaluate_function(evaluate_function_name(*node), is_custom(*node));
    std::optional<TracedTurn> traced;
    if (trace::enabled()) [[unlikely]]
      traced.emplace(*node, grad_outputs);
    auto run = [&] { return evaluate(node, std::move(grad_outputs), wanted, retain_graph); };
    Grads grad_inputs = [&] {
      try {
        return is_anomaly_enabled() ? evaluate_checked(*node, run) : run();
      } catch (const std::exception& error) {
        if (trace::enabled()) [[unlikely]]
          trace::error(error);
        throw;
      }
    }();
    for (size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& edge = node->next_edges[i];
      if (!edge.node) continue;
      if (grad_inputs[i].defined() && wanted[i]) add_to_buffer(edge, std::move(grad_inputs[i]));
      if (--task.dependencies[edge.node.get()] == 0) ready.push(edge.node);
    }
  }
  std::vector<Tensor> result;
  for (const Edge& input : inputs) {
    const auto found = captured.find(input.node.get());
    result.push_back(found == captured.end() ? Tensor() : found->second[input.input_nr]);
  }
  return result;
}

}  // namespace ember::autograd
