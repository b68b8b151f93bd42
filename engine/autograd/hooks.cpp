// Running hooks (see hooks.h), in PyTorch 1.13's order: a tensor's hooks, then the node's pre-hooks,
// the formula, then its post-hooks. Each runs over a copy of its list, so a hook may remove itself.
#include "hooks.h"

#include "autograd_meta.h"
#include "node.h"

namespace ember::autograd {

namespace {

const std::shared_ptr<HookList<TensorHook>>& tensor_hooks(const Node& node) {
  if (const auto* accumulate = std::get_if<AccumulateGrad>(&node.fn)) return accumulate->variable->autograd_meta->hooks;
  return node.tensor_pre_hooks;
}

}  // namespace

Tensor run_pre_hooks(const Node& node, Tensor grad_output) {
  if (!grad_output.defined()) return grad_output;
  if (const auto& list = tensor_hooks(node)) {
    const auto hooks = list->hooks;
    for (const auto& [id, hook] : hooks)
      if (Tensor replaced = hook(grad_output); replaced.defined()) grad_output = std::move(replaced);
  }
  if (node.pre_hooks) {
    const auto hooks = node.pre_hooks->hooks;
    for (const auto& [id, hook] : hooks) {
      const std::vector<Tensor> replaced = hook({grad_output});
      EMBER_CHECK(replaced.size() <= 1, "hook 'hook' has returned an incorrect number of values (got ", replaced.size(),
                  ", but expected 1)");
      if (!replaced.empty() && replaced[0].defined()) grad_output = replaced[0];
    }
  }
  return grad_output;
}

std::vector<Tensor> run_post_hooks(const Node& node, std::vector<Tensor> grad_inputs, const Tensor& grad_output) {
  if (!node.post_hooks) return grad_inputs;
  const auto hooks = node.post_hooks->hooks;
  for (const auto& [id, hook] : hooks) {
    std::vector<Tensor> replaced = hook(grad_inputs, {grad_output});
    if (replaced.empty()) continue;
    EMBER_CHECK(replaced.size() == grad_inputs.size(), "hook 'hook' has returned an incorrect number of values (got ",
                replaced.size(), ", but expected ", grad_inputs.size(), ")");
    grad_inputs = std::move(replaced);
  }
  return grad_inputs;
}

}  // namespace ember::autograd
