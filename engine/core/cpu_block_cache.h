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

namespace ember::cpu_block_cache {

// A 64-byte aligned block of at least nbytes (nbytes > 0): a cached one of its size class when
// there is one, else a new one from the OS. Throws ember::Error when the OS has none. The nbytes
// are counted as allocated.
void* allocate(int64_t nbytes);
// Takes back a block from allocate(nbytes), with the same nbytes, and keeps it for reuse.
void release(void* block, int64_t nbytes);

// The CPU's account (memory_allocated, max_memory_allocated): bytes as requested, in blocks not
// yet released, and their peak since the start or the last reset.
int64_t allocated_bytes();
int64_t peak_allocated_bytes();
void reset_peak_allocated_bytes();

// Returns every cached block to the OS.
void empty();
int64_t reserved_bytes();  // in use plus cached, in whole size classes
int64_t os_allocations();  // blocks ever taken from the OS

}  // namespace ember::cpu_block_cache
