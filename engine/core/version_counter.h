// The version counter: how autograd notices that a tensor it saved for backward was changed in
// place. Every in-place op bumps it; a saved tensor remembers the value it had (its
// saved_version) and backward compares. The counter is shared by a tensor, its views and its
// detach()es, because they all see the same bytes.
//
// As in PyTorch (an intrusive_ptr<VersionCounter> in each TensorImpl), the counter belongs to the
// tensors, not to the storage: `.data()` sees the same bytes through a counter of its own, which
// is how it sneaks a change past autograd's check.
//
// Inference tensors (made inside InferenceMode) have no counter at all: `enabled` is false,
// reading it raises PyTorch's error and in-place ops skip the bump. That skipped bookkeeping is
// part of why inference_mode is cheaper than no_grad.
#pragma once
#include <atomic>
#include <cstdint>

#include "error.h"

namespace ember {

class VersionCounter {
 public:
  explicit VersionCounter(bool enabled) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  uint32_t current() const {
    EMBER_CHECK(enabled_, "Inference tensors do not track version counter.");
    return value_.load(std::memory_order_relaxed);
  }
  void bump() {
    if (enabled_) value_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint32_t> value_{0};
  const bool enabled_;
};

}  // namespace ember
