// The CUDA runtime side of ember: device discovery, raw device memory and copies. The counting
// in engine/allocator.cpp wraps these, so CUDA bytes show up in memory_allocated(cuda:N).
#include <cuda_runtime.h>

#include "cuda_backend.h"
#include "error.h"

namespace ember::cuda {

namespace {
void check(cudaError_t status, const char* what) {
  EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (", what, ")");
}
}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

bool is_available() { return device_count() > 0; }

void* allocate(int device, int64_t nbytes) {
  EMBER_CHECK(is_available(), "No CUDA GPUs are available");
  EMBER_CHECK(device < device_count(), "CUDA error: invalid device ordinal");
  check(cudaSetDevice(device), "cudaSetDevice");
  void* data = nullptr;
  check(cudaMalloc(&data, static_cast<size_t>(nbytes)), "cudaMalloc");
  return data;
}

void free(int device, void* data) {
  cudaSetDevice(device);
  cudaFree(data);
}

void copy_bytes(void* dst, const void* src, int64_t nbytes, CopyKind kind) {
  cudaMemcpyKind how = kind == CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
                       : kind == CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                        : cudaMemcpyDeviceToDevice;
  check(cudaMemcpy(dst, src, static_cast<size_t>(nbytes), how), "cudaMemcpy");
}

void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

}  // namespace ember::cuda
