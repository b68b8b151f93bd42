// Hooks: the user's functions the engine calls on gradients as they flow, to look at them (print a
// norm, find where a NaN starts) or replace them (clip one tensor's gradient), as PyTorch's hooks:
//   - a tensor hook (Tensor::register_hook) sees the gradient computed for that tensor and may
//     return a replacement; on a leaf it runs before the gradient is added into .grad.
//     retain_grad() is one such hook, storing a non-leaf's gradient in its .grad.
//   - a node's pre-hook (Node::register_prehook) sees the node's incoming gradient after the
//     tensor hooks, and may replace it; its post-hook (Node::register_hook) sees the gradients the
//     node computed for its inputs and the one it received, and may replace the former.
// Each registration returns a handle whose remove() takes the hook out again.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/removable_handle.h"
#include "core/tensor.h"

namespace ember::autograd {

// A tensor hook: the gradient in, a replacement out (an undefined Tensor keeps it).
using TensorHook = std::function<Tensor(const Tensor& grad)>;
// A node pre-hook: the node's incoming gradients in, replacements out (empty keeps them).
using PreHook = std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_outputs)>;
// A node post-hook: the gradients the node computed for its inputs and the ones it received;
// replacements for the former out (empty keeps them).
using PostHook =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs)>;

// Hooks in the order they were registered, each with the number its handle removes it by.
template <typename Hook>
struct HookList {
  std::vector<std::pair<uint64_t, Hook>> hooks;
  uint64_t next_id = 0;
};

// Adds `hook` at the end of `list` (made when missing) and returns its handle.
template <typename Hook>
RemovableHandle add_hook(std::shared_ptr<HookList<Hook>>& list, Hook hook) {
  if (!list) list = std::make_shared<HookList<Hook>>();
  const uint64_t id = list->next_id++;
  list->hooks.emplace_back(id, std::move(hook));
  return RemovableHandle([weak = std::weak_ptr<HookList<Hook>>(list), id] {
    if (auto hooks = weak.lock()) std::erase_if(hooks->hooks, [id](const auto& entry) { return entry.first == id; });
  });
}

// PyTorch's checks of what a hook returned (check_single_result, check_result): a replacement
// keeps its gradient's dtype, device and size, and a node hook returns one value per gradient.
// The message names the hook as PyTorch does: libtorch by its place among the hooks ("hook '0'"),
// torch by its Python __name__.
void check_hook_result(const Tensor& original, const Tensor& result, const std::string& hook_name);
// A node hook's replacements: as many as there were gradients, each defined one checked as above.
void check_hook_results(const std::vector<Tensor>& originals, const std::vector<Tensor>& results,
                        const std::string& hook_name);

struct Node;
// The gradients a node's formula gets, one per output: after the hooks of the tensor that is each
// output (a leaf's, for AccumulateGrad), then its pre-hooks, each in registration order, have seen
// and perhaps replaced them.
std::vector<Tensor> run_pre_hooks(const Node& node, std::vector<Tensor> grad_outputs);
// The gradients a node passes on: after its post-hooks have seen and perhaps replaced them.
std::vector<Tensor> run_post_hooks(const Node& node, std::vector<Tensor> grad_inputs,
                                   const std::vector<Tensor>& grad_outputs);

}  // namespace ember::autograd
