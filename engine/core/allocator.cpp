// Every tensor's bytes pass through here to their device's cache, which keeps the device's account
// under the lock it takes anyway: CPU blocks come from the block cache (cpu_block_cache.h), which
// rounds them up to size classes but counts the bytes each tensor asked for; a GPU's come from its
// caching allocator (cuda/caching_allocator.h), the checking device's from its own
// (checking_device.h). The profiler listens here (set_allocation_observer).
#include "allocator.h"

#include <atomic>
#include <cstdint>

#include "checking_device.h"
#include "cpu_block_cache.h"
#include "cuda_backend.h"
#include "error.h"

namespace ember {
namespace {

// A device's index, checked as PyTorch checks it (ember keeps figures for up to 16 devices).
int valid_index(Device device) {
  EMBER_CHECK(device.index >= 0 && device.index < 16, "Invalid device index ", static_cast<int>(device.index));
  return device.index;
}

// A device's figures, from its cache: the CPU block cache's or the device's caching allocator's.
cuda::MemoryStats stats_of(Device device) {
  if (device.is_cpu()) return cpu_block_cache::stats();
  if (device.is_checked()) return checking_device::memory_stats(valid_index(device));
  return cuda::memory_stats(valid_index(device));
}

std::atomic<AllocationObserver> observer{nullptr};

}  // namespace

void set_allocation_observer(AllocationObserver new_observer) { observer.store(new_observer); }

void* allocate_bytes(Device device, int64_t nbytes) {
  EMBER_CHECK(nbytes >= 0, "Trying to create tensor with negative dimension");
  if (nbytes == 0) return nullptr;
  void* data = nullptr;
  AllocationObserver told = observer.load(std::memory_order_relaxed);
  if (device.is_cpu()) {
    data = cpu_block_cache::allocate(nbytes);
    if (told) [[unlikely]]
      told(device, data, nbytes);
  } else {
    const int64_t before = told ? memory_allocated(device) : 0;
    data = device.is_checked() ? checking_device::allocate(valid_index(device), nbytes)
                               : cuda::allocate(device.index, nbytes);  // counted by the device's caching allocator
    if (told) [[unlikely]]
      told(device, data, memory_allocated(device) - before);  // the block handed out
  }
  return data;
}

void free_bytes(Device device, void* data, int64_t nbytes) {
  if (data == nullptr) return;
  AllocationObserver told = observer.load(std::memory_order_relaxed);
  if (device.is_cpu()) {
    cpu_block_cache::release(data, nbytes);
    if (told) [[unlikely]]
      told(device, data, -nbytes);
  } else {
    const int64_t before = told ? memory_allocated(device) : 0;
    if (device.is_checked()) checking_device::free(device.index, data);
    else cuda::free(device.index, data);
    if (told) [[unlikely]]
      told(device, data, memory_allocated(device) - before);  // the block given back
  }
}

void copy_bytes(Device device, void* dst, const void* src, int64_t nbytes, cuda::CopyKind kind) {
  if (device.is_checked()) checking_device::copy_bytes(valid_index(device), dst, src, nbytes, kind);
  else cuda::copy_bytes(dst, src, nbytes, kind);
}

int64_t memory_allocated(Device device) { return stats_of(device).allocated; }
int64_t max_memory_allocated(Device device) { return stats_of(device).peak_allocated; }
void reset_peak_memory_stats(Device device) {
  if (device.is_cpu()) cpu_block_cache::reset_peak_stats();
  else if (device.is_checked()) checking_device::reset_peak_memory_stats(valid_index(device));
  else cuda::reset_peak_memory_stats(valid_index(device));
}
int64_t memory_reserved(Device device) { return stats_of(device).reserved; }
int64_t os_allocations(Device device) { return stats_of(device).segments_allocated; }

void empty_cache() {
  cpu_block_cache::empty();
  checking_device::empty_cache();
  cuda::empty_cache();
}

}  // namespace ember
