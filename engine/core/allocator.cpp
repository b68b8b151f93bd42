// The CPU's live-bytes counter and peak, updated atomically so threads may allocate concurrently
// (CUDA devices are counted by their caching allocators, cuda/caching_allocator.h). The peak is raised with a
// compare-exchange loop (a plain max would race). CPU blocks come from the block cache (cpu_block_cache.h), which
// rounds them up to size classes; the account here still counts the bytes each tensor asked for.
#include "allocator.h"

#include <atomic>
#include <cstdint>

#include "cpu_block_cache.h"
#include "cuda_backend.h"
#include "error.h"

namespace ember {
namespace {

struct Account {
  std::atomic<int64_t> live{0};
  std::atomic<int64_t> peak{0};

  void add(int64_t nbytes) {
    int64_t now = live.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
    int64_t old_peak = peak.load(std::memory_order_relaxed);
    while (now > old_peak && !peak.compare_exchange_weak(old_peak, now, std::memory_order_relaxed)) {
    }
  }
  void remove(int64_t nbytes) { live.fetch_sub(nbytes, std::memory_order_relaxed); }
};

// A CUDA device's index, checked as PyTorch checks it (ember keeps figures for up to 16 devices).
int cuda_index(Device device) {
  EMBER_CHECK(device.index >= 0 && device.index < 16, "Invalid device index ", static_cast<int>(device.index));
  return device.index;
}

Account& cpu_account() {
  static Account cpu;
  return cpu;
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
    cpu_account().add(nbytes);
    if (told) [[unlikely]]
      told(device, nbytes);
  } else {
    const int64_t before = told ? memory_allocated(device) : 0;
    data = cuda::allocate(device.index, nbytes);  // counted by the device's caching allocator
    if (told) [[unlikely]]
      told(device, memory_allocated(device) - before);  // the block handed out
  }
  return data;
}

void free_bytes(Device device, void* data, int64_t nbytes) {
  if (data == nullptr) return;
  AllocationObserver told = observer.load(std::memory_order_relaxed);
  if (device.is_cpu()) {
    cpu_block_cache::release(data, nbytes);
    cpu_account().remove(nbytes);
    if (told) [[unlikely]]
      told(device, -nbytes);
  } else {
    const int64_t before = told ? memory_allocated(device) : 0;
    cuda::free(device.index, data);
    if (told) [[unlikely]]
      told(device, memory_allocated(device) - before);  // the block given back
  }
}

int64_t memory_allocated(Device device) {
  return device.is_cpu() ? cpu_account().live.load() : cuda::memory_stats(cuda_index(device)).allocated;
}
int64_t max_memory_allocated(Device device) {
  return device.is_cpu() ? cpu_account().peak.load() : cuda::memory_stats(cuda_index(device)).peak_allocated;
}
void reset_peak_memory_stats(Device device) {
  if (!device.is_cpu()) return cuda::reset_peak_memory_stats(cuda_index(device));
  Account& a = cpu_account();
  a.peak.store(a.live.load());
}

int64_t memory_reserved(Device device) {
  return device.is_cpu() ? cpu_block_cache::reserved_bytes() : cuda::memory_stats(cuda_index(device)).reserved;
}
void empty_cache() {
  cpu_block_cache::empty();
  cuda::empty_cache();
}
int64_t os_allocations(Device device) {
  return device.is_cpu() ? cpu_block_cache::os_allocations()
                         : cuda::memory_stats(cuda_index(device)).segments_allocated;
}

}  // namespace ember
