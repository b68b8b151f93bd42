// The CPU block cache: freed blocks are kept, by size class, and handed out again instead of going
// back to the OS. Why: a block of more than ~128 KiB that glibc returns to the OS comes back as
// fresh pages, and every first touch of a fresh page is a page fault; a training step that frees
// and reallocates the same activations every iteration spent about a quarter of its time there.
// PyTorch's CUDA caching allocator is the model (c10/cuda/CUDACachingAllocator.cpp, and ember's
// own cuda/caching_allocator.h): requests are rounded up to 512 bytes (kMinBlockSize), blocks up to
// 1 MiB (kSmallSize) form the small pool and larger ones, rounded to 2 MiB (kRoundLarge), the large
// pool. Unlike it, a block is never split or merged: a steady loop asks for the same sizes, so
// reuse by exact class is enough and the code stays short. Under AddressSanitizer nothing is cached and blocks are
// exactly the requested size, so a read past a tensor's end or a use after free is still reported.
#pragma once
#include <cstdint>

#include "cuda_backend.h"

namespace ember::cpu_block_cache {

// A 64-byte aligned block of at least nbytes (nbytes > 0): a cached one of its size class when
// there is one, else a new one from the OS. Throws ember::Error when the OS has none. The nbytes
// are counted as allocated.
void* allocate(int64_t nbytes);
// Takes back a block from allocate(nbytes), with the same nbytes, and keeps it for reuse.
void release(void* block, int64_t nbytes);

// The CPU's figures, in the struct a CUDA device's caching allocator reports (cuda_backend.h):
// bytes allocated as requested and their peak, bytes reserved (in use plus cached, in whole size
// classes) and their peak, and blocks ever taken from the OS. Peaks count from the start or the
// last reset_peak_stats().
cuda::MemoryStats stats();
void reset_peak_stats();

// Returns every cached block to the OS.
void empty();

// Throws the out-of-memory error allocate() would throw unless nbytes of address space can be had
// from the OS now, emptying the cache first if need be; keeps nothing. For a caller about to run a
// library that maps memory for itself and crashes when it cannot (oneDNN, kernels/room_for_onednn.h).
void check_available(int64_t nbytes);

}  // namespace ember::cpu_block_cache
