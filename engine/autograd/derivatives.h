// Every backward node and its derivative formula: all of autograd's math, as PyTorch keeps it in
// derivatives.yaml, in one section file per op family (listed below). Each node is named like
// PyTorch's generated node (AddmmBackward0) and holds, by name, what its formula reads: saved
// tensors (with their versions, saved_tensor.h; declared once with EMBER_SAVED_TENSORS, which also
// gives PyTorch's names for them) and plain arguments.
// In `apply`, `g` is the gradient of the op's output and `needs[i]` whether input i wants one; it
// returns one gradient per input (undefined: none). The engine runs it with grad mode off and then
// fixes broadcasting and dtype (match_input), so the rule for `a + b` is just {g, g}.
// Adding a node: its struct in its section, and its name in the section's NodeList at the bottom of
// that file. Formulas too long for a line are in formula_helpers.cpp.
#pragma once
#include <variant>

#include "accumulate_grad.h"
#include "copy_slices.h"
#include "custom_function.h"              // a user's autograd Function as a node
#include "double_backward_derivatives.h"  // the nodes of the ops formulas call (threshold_backward)
#include "linalg_derivatives.h"           // matrix products
#include "movement_derivatives.h"         // joining, copies, moves and fills
#include "nn_derivatives.h"               // softmax, layer_norm, losses
#include "pointwise_derivatives.h"        // arithmetic, unary math, bounds
#include "reduction_derivatives.h"        // sum, mean, var_mean, max, min
#include "view_copy_derivatives.h"        // the *_copy ops: each its view's node, renamed
#include "view_derivatives.h"             // the view ops

namespace ember::autograd {

// The one list of node kinds: every section's NodeList, joined. A test checks that each kind is
// produced by a fixture or gradcheck case.
template <typename... Lists>
struct JoinedNodes;
template <typename... Nodes>
struct JoinedNodes<NodeList<Nodes...>> {
  using Variant = std::variant<Nodes...>;
};
template <typename... A, typename... B, typename... Rest>
struct JoinedNodes<NodeList<A...>, NodeList<B...>, Rest...> : JoinedNodes<NodeList<A..., B...>, Rest...> {};

using BackwardFunction =
    JoinedNodes<NodeList<AccumulateGrad>, PointwiseNodes, ReductionNodes, LinalgNodes, NnNodes, MovementNodes,
                ViewNodes, ViewCopyNodes, DoubleBackwardNodes, NodeList<CopySlices, CustomFunction>>::Variant;

}  // namespace ember::autograd
