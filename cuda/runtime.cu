// The CUDA runtime side of ember: device discovery, device memory through the caching allocator
// (one per device, caching_allocator.h), copies, and the TF32 switch. engine/allocator.cpp calls
// allocate/free for every CUDA storage, so memory_allocated(cuda:N) reads PyTorch's figures.
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "check_status.h"
#include "core/caching_allocator.h"
#include "core/cuda_backend.h"
#include "core/error.h"

namespace ember::cuda {

namespace {

constexpr int kMaxDevices = 16;

// The device's caching allocator, created on first use (after checking the device exists) and
// never destroyed: a tensor kept in a static may be freed after this file's statics would be, and
// at exit the driver reclaims the segments.
CachingAllocator& allocator_for(int device) {
  static std::mutex mutex;
  static auto* allocators = new std::unique_ptr<CachingAllocator>[kMaxDevices];
  std::lock_guard lock(mutex);
  EMBER_CHECK(device >= 0 && device < kMaxDevices, "Invalid device index ", device);
  if (!allocators[device]) {
    RawMemory raw;
    raw.allocate = [device](int64_t nbytes) -> void* {
      check(cudaSetDevice(device), "cudaSetDevice");
      void* data = nullptr;
      if (cudaMalloc(&data, static_cast<size_t>(nbytes)) != cudaSuccess) {
        cudaGetLastError();  // out of memory is not sticky: clear it, the allocator decides
        return nullptr;
      }
      return data;
    };
    raw.free = [device](void* data) {
      check(cudaSetDevice(device), "cudaSetDevice");
      check(cudaFree(data), "cudaFree");
    };
    raw.device_name = "cuda:" + std::to_string(device);
    allocators[device] = std::make_unique<CachingAllocator>(std::move(raw));
  }
  return *allocators[device];
}

std::atomic<bool> allow_tf32{false};

}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

bool is_built() { return true; }
bool is_available() { return device_count() > 0; }

// Why no GPU can be used, in the CUDA runtime's words ("no CUDA-capable device is detected").
static std::string unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  cudaGetLastError();
  return status == cudaSuccess ? "the runtime found no device" : cudaGetErrorString(status);
}

void* allocate(int device, int64_t nbytes) {
  EMBER_CHECK(is_available(), "No CUDA GPUs are available (CUDA runtime: ", unavailable_reason(), ")");
  EMBER_CHECK(device < device_count(), "CUDA error: invalid device ordinal");
  return allocator_for(device).allocate(nbytes);
}

void free(int device, void* data) { allocator_for(device).free(data); }

void copy_bytes(void* dst, const void* src, int64_t nbytes, CopyKind kind) {
  cudaMemcpyKind how = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                       : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                        : cudaMemcpyDeviceToDevice;
  check(cudaMemcpy(dst, src, static_cast<size_t>(nbytes), how), "cudaMemcpy");
}

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

MemoryStats memory_stats(int device) {
  if (device >= device_count()) return {};
  return allocator_for(device).stats();
}

void reset_peak_memory_stats(int device) {
  if (device < device_count()) allocator_for(device).reset_peak_stats();
}

void empty_cache() {
  for (int device = 0; device < device_count(); ++device) allocator_for(device).empty_cache();
}

bool matmul_allow_tf32() { return allow_tf32.load(); }
void set_matmul_allow_tf32(bool allow) { allow_tf32.store(allow); }

}  // namespace ember::cuda
