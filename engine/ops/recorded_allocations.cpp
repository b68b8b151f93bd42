// Fresh tensors made as ATen's factories make them, each allocation recorded as the factory call
// PyTorch's profiler shows (profiler/steps.h). Why: ATen's clone and factories allocate through
// empty_like, empty_strided and empty, which PyTorch's profile nests inside them and charges with
// the bytes (profile_memory); ember's clone and ones_like allocate the same tensor, so the same
// events, and the bytes land on the same rows.
#include "api/new_tensors.h"
#include "core/memory_layout.h"
#include "profiler/steps.h"

namespace ember::internal {

using profiler::steps::Unrecorded;

Tensor recorded_empty(const Dims& sizes, DType dtype, Device device) {
  // empty(size, dtype, layout, device, pin_memory, memory_format): no tensor among them.
  profiler::OpEvent<profiler::steps::Empty> step(Unrecorded{}, Unrecorded{}, Unrecorded{}, Unrecorded{}, Unrecorded{},
                                                 Unrecorded{});
  return new_empty(sizes, dtype, device);
}

Tensor recorded_empty_strided(const Dims& sizes, const Dims& strides, DType dtype, Device device) {
  // empty_strided(size, stride, dtype, layout, device, pin_memory): no tensor among them.
  profiler::OpEvent<profiler::steps::EmptyStrided> step(Unrecorded{}, Unrecorded{}, Unrecorded{}, Unrecorded{},
                                                        Unrecorded{}, Unrecorded{});
  return new_empty_strided(sizes, strides, dtype, device);
}

// ATen's empty_like: Preserve keeps t's layout when it is non-overlapping and dense, else its dense
// permutation (both through empty_strided); any other format is a plain empty.
Tensor recorded_empty_like(const Tensor& t, MemoryFormat memory_format) {
  profiler::OpEvent<profiler::steps::EmptyLike> step(t, Unrecorded{}, Unrecorded{}, Unrecorded{}, Unrecorded{},
                                                     Unrecorded{});
  if (memory_format == MemoryFormat::Preserve)
    return recorded_empty_strided(t.sizes(), preserved_strides({t.sizes(), t.strides()}), t.dtype(), t.device());
  if (memory_format == MemoryFormat::ChannelsLast)
    return recorded_empty_strided(t.sizes(), channels_last_strides(t.sizes()), t.dtype(), t.device());
  return recorded_empty(t.sizes(), t.dtype(), t.device());
}

}  // namespace ember::internal
