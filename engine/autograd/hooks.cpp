// Running hooks (see hooks.h), in PyTorch 1.13's order: a tensor's hooks, then the node's pre-hooks,
// the formula, then its post-hooks. Each runs over a copy of its list, so a hook may remove itself.
#include "hooks.h"

#include <cstdint>

#include "autograd_meta.h"
#include "core/dispatch_trace.h"
#include "node.h"

namespace ember::autograd {

namespace {

// The hooks of the tensor that is output `output_nr` of `node` (a leaf's, for AccumulateGrad).
const std::shared_ptr<HookList<TensorHook>>* tensor_hooks(const Node& node, size_t output_nr) {
  if (const auto* accumulate = std::get_if<AccumulateGrad>(&node.fn))
    return &accumulate->variable.lock()->autograd_meta->hooks;
  return output_nr < node.tensor_pre_hooks.size() ? &node.tensor_pre_hooks[output_nr] : nullptr;
}

// The dispatch trace's line before a hook runs (the lines of what it does follow, indented) and
// after, when it replaced what it was given.
void trace_calling(const char* kind, uint64_t id, size_t output_nr = SIZE_MAX) {
  if (!trace::enabled()) [[likely]]
    return;
  if (output_nr == SIZE_MAX) trace::say("calls ", kind, " ", id);
  else trace::say("calls ", kind, " ", id, " of output ", output_nr);
}
void trace_replaced(const std::vector<Tensor>& replaced) {
  if (!trace::enabled()) [[likely]]
    return;
  std::string names;
  for (const Tensor& t : replaced) names += (names.empty() ? "" : ", ") + trace::name_of(t);
  trace::say("the hook replaced the gradients: ", names);
}

}  // namespace

void check_hook_result(const Tensor& original, const Tensor& result, const std::string& hook_name) {
  EMBER_CHECK(original.defined(), "can't replace a empty gradient with a non-empty value");
  EMBER_CHECK(original.dtype() == result.dtype() && original.device() == result.device(), "hook '", hook_name,
              "' has changed the type of value (was ", legacy_type_name(original.dtype(), !original.device().is_cpu()),
              " got ", legacy_type_name(result.dtype(), !result.device().is_cpu()), ")");
  EMBER_CHECK(original.sizes() == result.sizes(), "hook '", hook_name, "' has changed the size of value");
}

void check_hook_results(const std::vector<Tensor>& originals, const std::vector<Tensor>& results,
                        const std::string& hook_name) {
  EMBER_CHECK(results.size() == originals.size(), "hook '", hook_name,
              "' has returned an incorrect number of values (got ", results.size(), ", but expected ", originals.size(),
              ")");
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].defined()) check_hook_result(originals[i], results[i], hook_name);
}

std::vector<Tensor> run_pre_hooks(const Node& node, std::vector<Tensor> grad_outputs) {
  for (size_t i = 0; i < grad_outputs.size(); ++i) {  // a tensor's hooks see its gradient even when undefined
    if (const auto* list = tensor_hooks(node, i); list && *list) {
      const auto hooks = (*list)->hooks;
      for (const auto& [id, hook] : hooks) {
        trace_calling("tensor hook", id, i);
        if (Tensor replaced = hook(grad_outputs[i]); replaced.defined()) {
          check_hook_result(grad_outputs[i], replaced, std::to_string(id));
          trace_replaced({replaced});
          grad_outputs[i] = std::move(replaced);
        }
      }
    }
  }
  if (node.pre_hooks) {
    const auto hooks = node.pre_hooks->hooks;
    for (const auto& [id, hook] : hooks) {
      trace_calling("pre-hook", id);
      std::vector<Tensor> replaced = hook(grad_outputs);
      if (replaced.empty()) continue;
      check_hook_results(grad_outputs, replaced, std::to_string(id));
      trace_replaced(replaced);
      grad_outputs = std::move(replaced);
    }
  }
  return grad_outputs;
}

std::vector<Tensor> run_post_hooks(const Node& node, std::vector<Tensor> grad_inputs,
                                   const std::vector<Tensor>& grad_outputs) {
  if (!node.post_hooks) return grad_inputs;
  const auto hooks = node.post_hooks->hooks;
  for (const auto& [id, hook] : hooks) {
    trace_calling("post-hook", id);
    std::vector<Tensor> replaced = hook(grad_inputs, grad_outputs);
    if (replaced.empty()) continue;
    check_hook_results(grad_inputs, replaced, std::to_string(id));
    trace_replaced(replaced);
    grad_inputs = std::move(replaced);
  }
  return grad_inputs;
}

}  // namespace ember::autograd
