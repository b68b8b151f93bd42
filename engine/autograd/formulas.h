// The derivative formulas (formulas.cpp) and the two gradient fix-ups the engine applies to every
// gradient it passes on: reduce a broadcast gradient to the input's shape, cast it to its dtype.
#pragma once
#include <vector>

#include "node.h"

namespace ember::autograd {

// Gradients for each input of `node`, given the gradients of its outputs (undefined entries:
// no gradient flowed to that output, or the input needs none).
std::vector<Tensor> apply_formula(const Node& node, const std::vector<Tensor>& grad_outputs);

// Sums `grad` over the dims that were broadcast to reach it from `sizes`.
Tensor sum_to(const Tensor& grad, const Dims& sizes);
// sum_to and a dtype/device cast so a gradient matches its input (PyTorch's validate_outputs).
Tensor match_input(Tensor grad, const InputMeta& input, const Node& node);

}  // namespace ember::autograd
