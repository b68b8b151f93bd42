// The counting allocator. Every tensor's bytes are allocated here, one account per device, so
// `memory_allocated(device)` tells exactly how many bytes live tensors (and the graphs that keep
// them alive) hold: the number the chapter's memory-leak exercise watches grow.
// CPU counts requested bytes, as PyTorch's CPU memory reporter does (64-byte aligned blocks,
// no cache); CUDA bytes come from a caching allocator per device and are counted as PyTorch counts
// them (blocks of 512-byte multiples: one float costs 512), see cuda/caching_allocator.h.
#pragma once
#include <cstdint>

#include "device.h"

namespace ember {

void* allocate_bytes(Device device, int64_t nbytes);
void free_bytes(Device device, void* data, int64_t nbytes);

// Someone told of every allocation (+nbytes) and free (-nbytes), on the allocating thread: the
// profiler, which counts the bytes each op allocates. One at a time; null when nobody listens.
using AllocationObserver = void (*)(Device device, int64_t delta);
void set_allocation_observer(AllocationObserver observer);

int64_t memory_allocated(Device device = kCPU);
int64_t max_memory_allocated(Device device = kCPU);
void reset_peak_memory_stats(Device device = kCPU);

}  // namespace ember
