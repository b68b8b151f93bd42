// Storage: one reference-counted block of bytes on one device. Tensors are views onto a storage
// (sizes, strides and an offset say which elements they see), so `t[0]` and `t` share bytes and
// a write through one is visible through the other. The bytes come from the counting allocator
// and go back to it when the last tensor using them is destroyed; or they belong to someone else
// (a NumPy array's, through from_blob), who is told through `release` instead.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "allocator.h"
#include "device.h"

namespace ember {

struct Storage {
  Storage(int64_t nbytes, Device device) : data(allocate_bytes(device, nbytes)), nbytes(nbytes), device(device) {}
  // Bytes another owner keeps alive until `release(data)`; the allocator does not count them, as
  // PyTorch's does not count a from_numpy tensor's. They cannot grow (resize_ refuses).
  Storage(void* data, int64_t nbytes, Device device, std::function<void(void*)> release)
      : data(data),
        nbytes(nbytes),
        device(device),
        release(std::move(release)) {}
  ~Storage() {
    if (release) release(data);
    else free_bytes(device, data, nbytes);
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // resize_ past the end: new bytes with the old ones copied to their start, seen at once by
  // every tensor on this storage (PyTorch resizes the StorageImpl they share). Defined in resize.cpp.
  void grow(int64_t new_nbytes);

  void* data;
  int64_t nbytes;
  const Device device;
  std::function<void(void*)> release;  // empty: the bytes are the allocator's
  // A kernel's data derived from these bytes, kept while they are unchanged and dropped with them:
  // today only a matmul's packed copy of a weight, which kernels/packed_weights.cpp alone stores
  // and reads here. Null for almost every storage.
  std::shared_ptr<void> kernel_cache;
};

}  // namespace ember
