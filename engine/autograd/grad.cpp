// autograd::grad's argument checks, in PyTorch's order and with its texts (torch.autograd.grad,
// _make_grads and the engine's input checks), then one run of the engine that keeps what arrives
// at the inputs (engine.h, run_graph).
#include "grad.h"

#include "accumulate_grad.h"
#include "api/new_tensors.h"
#include "api/ops.h"
#include "core/grad_mode.h"
#include "core/warning.h"
#include "engine.h"
#include "record.h"

namespace ember::autograd {

namespace {

// Each output's starting gradient: the one given, or ones for a one-element output.
std::vector<Tensor> make_grads(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "got ", outputs.size(), " tensors and ",
              grad_outputs.size(), " gradients");
  std::vector<Tensor> grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& output = outputs[i];
    Tensor given = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (given.defined()) {
      EMBER_CHECK(given.sizes() == output.sizes(), "Mismatch in shape: grad_output[", i, "] has a shape of torch.Size(",
                  to_string(given.sizes()), ") and output[", i, "] has a shape of torch.Size(",
                  to_string(output.sizes()), ").");
      grads.push_back(given);
    } else if (output.requires_grad()) {
      EMBER_CHECK(output.numel() == 1, "grad can be implicitly created only for scalar outputs");
      grads.push_back(ones_like(output));
    } else {
      grads.push_back(Tensor());
    }
  }
  return grads;
}

// The edge of each output and the gradient it starts with (a constant unless create_graph).
void add_roots(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grads, bool create_graph,
               std::vector<Edge>& roots, std::vector<Tensor>& root_grads) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge edge = outputs[i].requires_grad() ? gradient_edge(outputs[i]) : Edge{};
    EMBER_CHECK(edge.node, "element ", i, " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(edge);
    root_grads.push_back(fit_root_gradient(outputs[i], create_graph ? grads[i] : internal::alias(grads[i]), i));
  }
}

std::vector<Edge> input_edges_of(const std::vector<Tensor>& inputs) {
  std::vector<Edge> edges;
  for (const Tensor& input : inputs) {
    const Edge edge = input.requires_grad() ? gradient_edge(input) : Edge{};
    EMBER_CHECK(edge.node, "One of the differentiated Tensors does not require grad");
    edges.push_back(edge);
  }
  return edges;
}

}  // namespace

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> grads = make_grads(tensors, grad_tensors);
  if (create_graph)
    warn_once("Using backward() with create_graph=True will create a reference cycle between the parameter and its "
              "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
              "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
              "to None after use to break the cycle and avoid the leak.");
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  add_roots(tensors, grads, create_graph, roots, root_grads);
  const std::vector<Edge> input_edges = input_edges_of(inputs);
  const std::vector<Tensor> arrived =
      run_graph(roots, root_grads, input_edges, retain_graph.value_or(create_graph), create_graph);
  AutoGradMode grad_mode(create_graph);  // accumulating, as the engine does, with create_graph's grad mode
  for (size_t i = 0; i < inputs.size(); ++i)
    if (arrived[i].defined()) accumulate_grad(inputs[i], arrived[i]);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires non-empty inputs.");
  const std::vector<Tensor> grads = make_grads(outputs, grad_outputs);
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  add_roots(outputs, grads, create_graph, roots, root_grads);
  const std::vector<Edge> input_edges = input_edges_of(inputs);
  std::vector<Tensor> result =
      run_graph(roots, root_grads, input_edges, retain_graph.value_or(create_graph), create_graph);
  for (Tensor& gradient : result) {
    EMBER_CHECK(gradient.defined() || allow_unused,
                "One of the differentiated Tensors appears to not have been used "
                "in the graph. Set allow_unused=True if this is the desired behavior.");
  }
  return result;
}

}  // namespace ember::autograd
