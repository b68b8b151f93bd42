// The autograd layer of an op call (dispatch.h runs it after the op computed): decide whether to
// record, create the node with one edge per tensor input, and attach it to the output. PyTorch's
// extra rules for views and in-place ops are in inplace.h; what each node does is derivatives.h.
#pragma once
#include <memory>
#include <type_traits>
#include <utility>

#include "core/grad_mode.h"
#include "core/inference_mode.h"
#include "core/recycled_blocks.h"
#include "node.h"

namespace ember::autograd {

// Calls f on each tensor among an op's arguments, in order: a Tensor argument, or each element
// of a tensor list (cat, stack). These are the op's inputs in the graph; other arguments are not.
template <typename F, typename... Args>
void for_each_tensor(F&& f, const Args&... args) {
  auto visit = [&](const auto& arg) {
    using T = std::decay_t<decltype(arg)>;
    if constexpr (std::is_same_v<T, Tensor>) f(arg);
    else if constexpr (std::is_same_v<T, std::vector<Tensor>>)
      for (const Tensor& t : arg) f(t);
  };
  (visit(args), ...);
}

// True when grad mode is on and any tensor argument requires grad: the op must record a node.
template <typename... Args>
bool any_requires_grad(const Args&... args) {
  if (!GradMode::is_enabled()) return false;
  bool any = false;
  for_each_tensor([&](const Tensor& t) { any = any || (t.defined() && t.requires_grad()); }, args...);
  return any;
}

// True when every tensor argument is an inference tensor: then PyTorch's dispatcher finds no
// autograd key (Autograd, ADInplaceOrView) to run for the call.
template <typename... Args>
bool all_inference(const Args&... args) {
  bool all = true;
  for_each_tensor([&](const Tensor& t) { all = all && (!t.defined() || t.is_inference()); }, args...);
  return all;
}

// True inside InferenceMode when every tensor argument is an inference tensor: such tensors have
// no version counter, no autograd data and cannot require grad, so PyTorch's dispatcher skips its
// autograd layers for the call, and ember's skips step 4 (dispatch.h).
template <typename... Args>
bool skips_autograd(const Args&... args) {
  return InferenceMode::is_enabled() && all_inference(args...);
}

// Note [Kernel writes outside InferenceMode]
// An inference tensor lacks the Autograd and ADInplaceOrView keys, so outside InferenceMode an op on
// inference tensors alone reaches ATen's kernel with no autograd layer above it, and the in-place
// writes that kernel makes into its fresh (normal) result go through ADInplaceOrView and count:
// made inside inference_mode, t.clone() outside it is at version 1 (its copy_), t.mean() at 2. An
// op whose ATen kernel writes so says how often (Op::kernel_writes, measured in PyTorch 1.13);
// ember's kernels compute the same values directly, and the dispatcher counts the writes here.
template <typename Result, typename... Args>
void count_kernel_writes(const Result& result, int writes, const Args&... args) {
  if (writes == 0 || InferenceMode::is_enabled() || !all_inference(args...)) return;
  if constexpr (std::is_same_v<Result, ValuesIndices>) {
    counted_writes(result.values, writes);
    counted_writes(result.indices, writes);
  } else {
    counted_writes(result, writes);
  }
}

uint64_t next_sequence_nr();                      // creation order of nodes
void add_input(Node& node, const Tensor& input);  // one edge (empty when it needs no gradient)

template <typename Backward>
std::shared_ptr<Node> new_node(Backward backward) {
  auto node = make_recycled<Node>(std::move(backward));
  node->sequence_nr = next_sequence_nr();
  return node;
}

// A node running `backward` with an edge for each tensor argument of the op call.
template <typename Backward, typename... Args>
std::shared_ptr<Node> make_node(Backward backward, const Args&... args) {
  std::apply([](auto&... saved) { (saved.set_node_name(Backward::name), ...); }, saved_tensors_of(backward));
  auto node = new_node(std::move(backward));
  size_t inputs = 0;
  for_each_tensor([&](const Tensor&) { ++inputs; }, args...);
  node->next_edges.reserve(inputs);  // past two: one allocation each, not one per growth step
  node->inputs.reserve(inputs);
  for_each_tensor([&](const Tensor& t) { add_input(*node, t); }, args...);
  return node;
}

// retain_grad()'s hook on `node` for `t` (its output t.output_nr), after the hooks t has so far:
// it keeps the gradient that arrives in t's .grad. It holds t weakly: the graph must not keep
// alive a tensor the user has dropped.
void attach_retains_grad_hook(const Tensor& t, Node& node);

// For an in-place op whose node reads its result (exp_: ExpBackward0's `result`): saves `self`,
// just written, as that result.
void save_result(Node& node, const Tensor& self);

// Makes `output` a non-leaf result of `node`: its output `output_nr`.
void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr = 0);

// t's grad_fn, rebuilt first if t is a view whose base changed in place since it was set.
std::shared_ptr<Node> current_grad_fn(const Tensor& t);

// The receiver of a gradient for `t`: its grad_fn, or its leaf's AccumulateGrad node.
Edge gradient_edge(const Tensor& t);

// A tensor's layout in its storage (what as_strided takes).
Geometry geometry_of(const Tensor& t);

// A node mapping a gradient of `view` (a view of `base` by layout) back onto `base`.
std::shared_ptr<Node> as_strided_node(const Tensor& view, const Tensor& base);

}  // namespace ember::autograd
