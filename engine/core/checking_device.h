// The checking device ("checked:0"): a second device that every machine has, so that the suite
// written for a GPU runs everywhere and catches the host-side mistakes about devices that a GPU
// would fault on: a CPU scalar's pointer handed to a device kernel, an output made on the wrong
// device. PyTorch's out-of-tree backends plug in the same way (PrivateUse1). Host code cannot tell
// it from CUDA: every branch on a tensor's device asks is_cpu(), and its bytes, like a GPU's, are
// reached only through its kernels and its copies. What differs is underneath:
//   - its memory is host memory from a caching allocator of its own, CUDA's (caching_allocator.h:
//     512-byte blocks in segments, counted per device), so memory_allocated(checked_device())
//     reads as memory_allocated(cuda_device()) does;
//   - its kernel table (kernels/checking_kernels.cpp) runs the CPU kernels after checking that
//     every tensor a kernel is handed lives on this device, in a block this allocator handed out;
//   - its copies are memcpy, after the same check of their device side.
#pragma once
#include <cstdint>

#include "cuda_backend.h"  // MemoryStats, CopyKind: the same figures and copies as a GPU's

namespace ember::checking_device {

void* allocate(int device, int64_t nbytes);
void free(int device, void* data);
cuda::MemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();  // every checking device's wholly free segments

// Whether [begin, begin + nbytes) lies in a block that `device`'s allocator has handed out.
bool holds(int device, const void* begin, int64_t nbytes);

// cudaMemcpy's counterpart, a memcpy once each side is checked: the device side must be `device`'s
// memory, the host side must not be.
void copy_bytes(int device, void* dst, const void* src, int64_t nbytes, cuda::CopyKind kind);

}  // namespace ember::checking_device
