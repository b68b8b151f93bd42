// The checking device's memory and copies (checking_device.h).
#include "checking_device.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "caching_allocator.h"
#include "error.h"

namespace ember::checking_device {

namespace {

constexpr int kMaxDevices = 16;  // as for CUDA (allocator.cpp checks the index first)

std::string name_of(int device) { return "checked:" + std::to_string(device); }

// The device's caching allocator over host memory, created on first use and never destroyed: a
// tensor kept in a static may be freed after the statics of this file would be.
cuda::CachingAllocator& allocator_for(int device) {
  static std::mutex mutex;
  static auto* allocators = new std::unique_ptr<cuda::CachingAllocator>[kMaxDevices];
  std::lock_guard lock(mutex);
  if (!allocators[device]) {
    cuda::RawMemory raw;
    raw.allocate = [](int64_t nbytes) { return std::malloc(static_cast<size_t>(nbytes)); };
    raw.free = [](void* data) { std::free(data); };
    raw.device_name = name_of(device);
    allocators[device] = std::make_unique<cuda::CachingAllocator>(std::move(raw));
  }
  return *allocators[device];
}

// A copy's side on `device` is its memory, a host side is no checking device's (a copy within the
// device may read another checking device's, as cudaMemcpy reads another GPU's).
void check_side(int device, const void* bytes, int64_t nbytes, bool on_device, const char* side, bool any_device) {
  bool held = holds(device, bytes, nbytes);
  for (int other = 0; other < kMaxDevices && !held && (any_device || !on_device); ++other)
    held = holds(other, bytes, nbytes);
  if (held == on_device) return;
  throw Error(str_cat("ember: a copy on ", name_of(device), " was handed ", on_device ? "a " : "a host ", side,
                      on_device ? " that is not " : " that is ", "a block of ", name_of(device), "'s allocator"));
}

}  // namespace

void* allocate(int device, int64_t nbytes) { return allocator_for(device).allocate(nbytes); }
void free(int device, void* data) { allocator_for(device).free(data); }
cuda::MemoryStats memory_stats(int device) { return allocator_for(device).stats(); }
void reset_peak_memory_stats(int device) { allocator_for(device).reset_peak_stats(); }
void empty_cache() {
  for (int device = 0; device < kMaxDevices; ++device) allocator_for(device).empty_cache();
}

bool holds(int device, const void* begin, int64_t nbytes) { return allocator_for(device).holds(begin, nbytes); }

void copy_bytes(int device, void* dst, const void* src, int64_t nbytes, cuda::CopyKind kind) {
  using cuda::CopyKind;
  if (nbytes == 0) return;  // an empty tensor's (it may have no block at all): nothing to copy, as cudaMemcpy
  check_side(device, dst, nbytes, kind != CopyKind::DeviceToHost, "destination", false);
  check_side(device, src, nbytes, kind != CopyKind::HostToDevice, "source", kind == CopyKind::DeviceToDevice);
  std::memcpy(dst, src, static_cast<size_t>(nbytes));
}

}  // namespace ember::checking_device
