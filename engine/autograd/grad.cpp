// autograd::grad's argument checks, in PyTorch's order and with its texts (torch.autograd.grad,
// _make_grads and the engine's input checks), then one run of the engine that keeps what arrives
// at the inputs (engine.h, run_graph).
#include "grad.h"

#include "engine.h"
#include "ops/new_tensors.h"
#include "ops/ops.h"
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

}  // namespace

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  EMBER_CHECK(!inputs.empty(), "grad requires non-empty inputs.");
  const std::vector<Tensor> grads = make_grads(outputs, grad_outputs);
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge edge = outputs[i].requires_grad() ? gradient_edge(outputs[i]) : Edge{};
    EMBER_CHECK(edge.node, "element ", i, " of tensors does not require grad and does not have a grad_fn");
    roots.push_back(edge);
    // A gradient given without create_graph is a constant: its own history is not followed.
    root_grads.push_back(fit_root_gradient(outputs[i], create_graph ? grads[i] : internal::alias(grads[i]), i));
  }
  std::vector<Edge> input_edges;
  for (const Tensor& input : inputs) {
    const Edge edge = input.requires_grad() ? gradient_edge(input) : Edge{};
    EMBER_CHECK(edge.node, "One of the differentiated Tensors does not require grad");
    input_edges.push_back(edge);
  }
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
