// What an allocation is for, as PyTorch 2's memory profiler sorts memory
// (torch/profiler/_memory_profiler.py's Category): a parameter, an optimizer's state, an input,
// a temporary, an activation (saved for backward), a leaf's gradient, or autograd's own detail (a
// gradient flowing between nodes). PyTorch infers the category from the ops it recorded; ember's
// engine says it where it knows, with one call:
//
//   profiler::tag_memory(saved, MemoryCategory::Activation);   // in SavedTensor's constructor
//
// The places that tag: SavedTensor (activation), AccumulateGrad (the leaf's .grad: gradient; the
// leaf: parameter), the backward engine's gradient buffers (autograd detail), Module's
// register_parameter and every optimizer step (parameter, optimizer state). What no one tags is a
// temporary if it was allocated while the profile ran, an input if it existed before (seen as an
// op's argument), and unknown (PyTorch's None) if the profile only saw it freed.
//
// One category per allocation for its whole life, as in PyTorch: the timeline is drawn after the
// profile stopped, so a category learned late (a gradient computed as autograd detail, then kept
// as .grad) colours the allocation from its start. When two tags disagree the stronger wins:
// parameter > optimizer state > gradient > input > activation > autograd detail > temporary (a
// weight saved for backward stays a parameter; a batch saved for backward stays an input).
//
// Off the profile, tag_memory costs one relaxed atomic load: it does anything only while a
// profiler with profile_memory=true runs.
#pragma once
#include <atomic>
#include <cstdint>

#include "core/tensor.h"

namespace ember::profiler {

// PyTorch's Category members, in its order; Unknown is its `None`.
enum class MemoryCategory : uint8_t {
  Input,
  Temporary,
  Activation,
  Gradient,
  AutogradDetail,
  Parameter,
  OptimizerState,
  Unknown,
};
constexpr int kMemoryCategories = 8;  // with Unknown

// PyTorch's enum names: "PARAMETER", "OPTIMIZER_STATE", ..., "UNKNOWN" for None.
const char* category_name(MemoryCategory category);

namespace detail {
inline std::atomic<bool> tagging_memory{false};  // a profile with profile_memory runs
void tag_memory_slow(const Tensor& t, MemoryCategory category);
}  // namespace detail

// Says what `t`'s storage is for (see above); an undefined tensor or one without bytes is ignored.
inline void tag_memory(const Tensor& t, MemoryCategory category) {
  if (detail::tagging_memory.load(std::memory_order_relaxed)) [[unlikely]]
    detail::tag_memory_slow(t, category);
}

}  // namespace ember::profiler
