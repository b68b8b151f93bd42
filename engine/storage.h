// Storage: one reference-counted block of bytes on one device. Tensors are views onto a storage
// (sizes, strides and an offset say which elements they see), so `t[0]` and `t` share bytes and
// a write through one is visible through the other. The bytes come from the counting allocator
// and go back to it when the last tensor using them is destroyed.
#pragma once
#include <cstdint>

#include "allocator.h"
#include "device.h"
#include "version_counter.h"

namespace ember {

struct Storage {
  Storage(int64_t nbytes, Device device, bool tracks_version)
      : data(allocate_bytes(device, nbytes)),
        nbytes(nbytes),
        device(device),
        version_counter(tracks_version) {}
  ~Storage() { free_bytes(device, data, nbytes); }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* const data;
  const int64_t nbytes;
  const Device device;
  VersionCounter version_counter;
};

}  // namespace ember
