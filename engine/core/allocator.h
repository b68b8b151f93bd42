// The counting allocator. Every tensor's bytes are allocated here, one account per device, so
// `memory_allocated(device)` tells exactly how many bytes live tensors (and the graphs that keep
// them alive) hold: the number the chapter's memory-leak exercise watches grow.
// CPU counts requested bytes, as PyTorch's CPU memory reporter does (64-byte aligned blocks).
// Freed CPU blocks are kept for reuse (cpu_block_cache.h), so a training loop that allocates the
// same sizes every step stops asking the OS for memory after its first steps; `memory_reserved`
// counts those cached blocks too, and `empty_cache` gives them back. CUDA bytes come from a caching
// allocator per device and are counted as PyTorch counts them (blocks of 512-byte multiples: one
// float costs 512), see cuda/caching_allocator.h; the checking device's come from one of its own
// (checking_device.h), counted alike.
#pragma once
#include <cstdint>

#include "cuda_backend.h"  // CopyKind
#include "device.h"

namespace ember {

void* allocate_bytes(Device device, int64_t nbytes);
void free_bytes(Device device, void* data, int64_t nbytes);
// Copies bytes between the host and `device` (not the CPU), or within `device`: cudaMemcpy on a GPU,
// a checked memcpy on the checking device.
void copy_bytes(Device device, void* dst, const void* src, int64_t nbytes, cuda::CopyKind kind);

// Someone told of every allocation (+bytes) and free (-bytes) of the block at `data`, on the
// allocating thread: the profiler, which counts the bytes each op allocates and, with
// profile_memory, follows each block from allocation to free (memory_timeline.h). CPU bytes as
// requested, CUDA bytes as the block handed out (what memory_allocated counts), as PyTorch's
// profiler reports each. One at a time; null when nobody listens.
using AllocationObserver = void (*)(Device device, const void* data, int64_t delta);
void set_allocation_observer(AllocationObserver observer);

int64_t memory_allocated(Device device = kCPU);
int64_t max_memory_allocated(Device device = kCPU);
void reset_peak_memory_stats(Device device = kCPU);

// Bytes held from the OS: blocks in use (rounded up to their size class) plus cached free blocks.
int64_t memory_reserved(Device device = kCPU);
// Returns every cached free block to the OS, on the CPU and every other device (torch.cuda.empty_cache);
// blocks in use stay.
void empty_cache();
// How many times the allocator has asked the OS (cudaMalloc on a GPU) for a new block since the program
// started: the number a warmed-up steady loop no longer raises (torch.cuda.memory_stats' segment.all.allocated).
int64_t os_allocations(Device device = kCPU);

}  // namespace ember
