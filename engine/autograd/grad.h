// autograd::grad: the gradients of some outputs with respect to chosen inputs, returned instead of
// accumulated into .grad (PyTorch's torch.autograd.grad). With create_graph the engine runs each
// formula with grad mode on, so the gradients have a graph of their own and can be differentiated
// again: a gradient penalty, a Hessian-vector product, gradgradcheck.
#pragma once
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace ember::autograd {

// d(sum of outputs[i] * grad_outputs[i]) / d inputs[j], one per input. A missing grad_output is
// ones for a one-element output (anything larger raises PyTorch's error). retain_graph defaults to
// create_graph. An input the outputs do not depend on raises, unless allow_unused (then its
// gradient is undefined).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                         bool create_graph = false, bool allow_unused = false);

// PyTorch's torch.autograd.backward: the gradients of the `tensors` (seeded with `grad_tensors`,
// or ones for one-element tensors) accumulated into the .grad of every leaf they depend on, or,
// when `inputs` are given, of those inputs only (a non-leaf input's .grad too). retain_graph
// defaults to create_graph.
void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const std::vector<Tensor>& inputs = {});

}  // namespace ember::autograd
