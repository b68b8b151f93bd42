// The thread's stack of saved-tensor hooks and the switch that forbids them (PyTorch's
// at::SavedTensorDefaultHooks). Saving a tensor reads only the top of the stack.
#include "saved_tensors_hooks.h"

#include <utility>
#include <vector>

namespace ember::autograd {

namespace {

struct HooksState {
  std::vector<std::shared_ptr<const SavedTensorHooks>> stack;
  std::optional<std::string> disabled_message;
};

HooksState& state() {
  thread_local HooksState hooks;
  return hooks;
}

}  // namespace

const std::shared_ptr<const SavedTensorHooks>& current_saved_tensors_hooks() {
  static const std::shared_ptr<const SavedTensorHooks> none;
  const auto& stack = state().stack;
  return stack.empty() ? none : stack.back();
}

bool saved_tensors_hooks_enabled() { return !state().disabled_message; }

saved_tensors_hooks::saved_tensors_hooks(PackHook pack, UnpackHook unpack) {
  HooksState& hooks = state();
  if (hooks.disabled_message) throw Error(*hooks.disabled_message);
  EMBER_CHECK(pack && unpack, "saved_tensors_hooks: both a pack and an unpack hook are needed");
  hooks.stack.push_back(std::make_shared<const SavedTensorHooks>(SavedTensorHooks{std::move(pack), std::move(unpack)}));
}

saved_tensors_hooks::~saved_tensors_hooks() { state().stack.pop_back(); }

disable_saved_tensors_hooks::disable_saved_tensors_hooks(std::string message) {
  HooksState& hooks = state();
  if (!hooks.stack.empty()) throw Error(message);  // hooks already in effect: the guard is not made
  previous_ = std::exchange(hooks.disabled_message, std::move(message));
}

disable_saved_tensors_hooks::~disable_saved_tensors_hooks() { state().disabled_message = previous_; }

}  // namespace ember::autograd
