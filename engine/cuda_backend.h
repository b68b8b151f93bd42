// The few things the engine asks of the CUDA backend in cuda/. When ember is built without nvcc,
// cuda/no_cuda.cpp implements them by raising PyTorch's "not compiled with CUDA" error, so the
// rest of the engine never needs an #ifdef.
#pragma once
#include <cstdint>

namespace ember::cuda {

bool is_available();  // built with CUDA and at least one GPU present
int device_count();
void* allocate(int device, int64_t nbytes);
void free(int device, void* data);
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void copy_bytes(void* dst, const void* src, int64_t nbytes, CopyKind kind);
void synchronize();

}  // namespace ember::cuda
