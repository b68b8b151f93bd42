// A user's own autograd function: a forward the user writes and the backward that goes with it,
// recorded as one node of the graph (PyTorch's torch.autograd.Function in Python, its PyNode, and
// libtorch's torch::autograd::Function<T>, its CppNode). Both frontends (function.h for C++,
// python/src/custom_function.cpp for Python) run the user's forward and then call this file, which
// does what PyTorch's custom_function.cpp does for either: gives each output its place in the
// graph, saves what ctx.save_for_backward named, and, in backward, materializes missing gradients
// and checks what the user's backward returned.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formula_helpers.h"
#include "input_meta.h"
#include "saved_tensor.h"

namespace ember::autograd {

struct Node;

// What a frontend implements: the user's backward, and what it keeps.
struct CustomBackward {
  virtual ~CustomBackward() = default;
  // The user's backward: one gradient per argument of the forward (undefined for an argument that
  // was not a tensor or needs none), given one per output of the forward.
  virtual std::vector<Tensor> backward(const std::vector<Tensor>& grad_outputs) = 0;

  std::string name;                    // "MyFunctionBackward": the Function's name + "Backward"
  std::string evaluate_function_name;  // the profiler's event around it: "autograd::engine::evaluate_function: " + name
  std::vector<bool> is_tensor_arg;     // per forward argument: whether it was a tensor (an input of the node)
  std::vector<SavedTensor> saved;      // ctx.save_for_backward
  bool materialize_grads = true;       // ctx.set_materialize_grads: zeros for an output given no gradient
  bool has_freed_buffers = false;      // backward ran without retain_graph
  std::vector<std::optional<InputMeta>> outputs;  // each output tensor's sizes, dtype, device (for those zeros)
};

// The node kind of a custom function (derivatives.h's BackwardFunction lists it).
struct CustomFunction {
  static constexpr const char* name = "CustomFunction";  // the node's real name is backward->name
  static constexpr bool takes_all_outputs = true;
  std::shared_ptr<CustomBackward> backward;
  Grads apply(const std::vector<Tensor>& grad_outputs, Needs needs) const;
};

// After the user's forward: the node (null when no input requires grad or grad mode is off) and the
// forward's tensor inputs, dirty inputs (ctx.mark_dirty), outputs the user marked
// non-differentiable, and raw outputs (undefined where an output was not a tensor). Returns the
// outputs as the caller gets them: each with its history, an input returned unchanged as a view
// of itself, a dirty input with the node as its new history, in PyTorch's order of checks.
std::vector<Tensor> wrap_outputs(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& dirty, const std::vector<Tensor>& non_differentiable,
                                 const std::vector<Tensor>& raw_outputs);

// ctx.save_for_backward's tensors, saved by the node after wrap_outputs (an output is saved as an
// output, so that the node does not keep itself alive).
void save_for_backward(Node& node, CustomBackward& backward, const std::vector<Tensor>& to_save);
// The saved tensors, unpacked and version-checked (ctx.saved_tensors).
std::vector<Tensor> saved_tensors(const std::shared_ptr<Node>& node, const CustomBackward& backward);

// The node a custom function records: edges to its tensor inputs.
std::shared_ptr<Node> make_custom_node(std::shared_ptr<CustomBackward> backward, const std::vector<Tensor>& inputs);

}  // namespace ember::autograd
