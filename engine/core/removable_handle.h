// RemovableHandle: what registering a hook returns (autograd/hooks.h), PyTorch's
// torch.utils.hooks.RemovableHandle. remove() takes the hook out again; a second remove() does
// nothing, and neither does one after what held the hook is gone. It lives in the core because
// Tensor::register_hook returns one.
#pragma once
#include <functional>
#include <utility>

namespace ember {

class RemovableHandle {
 public:
  RemovableHandle() = default;
  explicit RemovableHandle(std::function<void()> remove) : remove_(std::move(remove)) {}
  void remove() {
    if (remove_) std::exchange(remove_, nullptr)();
  }

 private:
  std::function<void()> remove_;
};

}  // namespace ember
