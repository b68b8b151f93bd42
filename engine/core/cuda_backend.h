// The few things the engine asks of the CUDA backend in cuda/. When ember is built without nvcc,
// cuda/no_cuda.cpp implements them by raising PyTorch's "not compiled with CUDA" error, so the
// rest of the engine never needs an #ifdef.
#pragma once
#include <cstdint>
#include <vector>

namespace ember::cuda {

bool is_built();      // torch.backends.cuda.is_built(): compiled with nvcc, GPU or not
bool is_available();  // built with CUDA and at least one GPU present
int device_count();
void* allocate(int device, int64_t nbytes);
void free(int device, void* data);
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void copy_bytes(void* dst, const void* src, int64_t nbytes, CopyKind kind);
void synchronize();

// The caching allocator's figures for one device (cuda/caching_allocator.h), as torch.cuda's.
struct MemoryStats {
  int64_t allocated = 0, peak_allocated = 0;  // bytes of blocks handed out to tensors
  int64_t reserved = 0, peak_reserved = 0;    // bytes of segments held from cudaMalloc
  int64_t segments_allocated = 0;             // cudaMalloc calls so far (never decreases)
};
MemoryStats memory_stats(int device);
void reset_peak_memory_stats(int device);
void empty_cache();  // every device's wholly free cached segments back to the driver

// torch.backends.cuda.matmul.allow_tf32: float32 products on tensor cores in TF32 (10-bit
// mantissa inputs). Off by default, as in PyTorch since 1.12.
bool matmul_allow_tf32();
void set_matmul_allow_tf32(bool allow);

// The profiler's CUDA activity (profiler_recording.cpp), timed as PyTorch's legacy profiler times
// it: a CUDA event recorded on cuda:0's stream as each op starts and ends, read back once at
// stop(). The GPU time between an op's two events is the GPU work it (and what it called) queued.
void start_timeline();                // forgets earlier marks; records the origin
int32_t mark_timeline();              // records an event now; returns its number
std::vector<double> read_timeline();  // waits for the GPU; each mark's microseconds after the origin

// NVTX ranges (profiler::EmitNvtx), the ranges Nsight Systems draws on its timeline.
void push_nvtx_range(const char* name);
void pop_nvtx_range();

}  // namespace ember::cuda
