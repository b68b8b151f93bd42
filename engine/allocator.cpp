// The CPU's live-bytes counter and peak, updated atomically so threads may allocate concurrently
// (CUDA devices are counted by their caching allocators, cuda/caching_allocator.h). The peak is raised with a
// compare-exchange loop (a plain max would race). CPU blocks are 64-byte aligned like PyTorch's, but carved out of a
// plain malloc (the pointer it returned is kept just before the aligned block): glibc's aligned_alloc skips malloc's
// per-thread cache and made a tiny op's three allocations cost about 40 ns more.
#include "allocator.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cuda_backend.h"
#include "error.h"

namespace ember {
namespace {

constexpr int64_t kAlignment = 64;

// malloc returns 16-byte aligned blocks, so rounding (raw + 64) down to 64 leaves 16 to 64 bytes
// in front of the aligned block: room to remember `raw` for free().
void* aligned_cpu_alloc(int64_t nbytes) {
#ifdef __SANITIZE_ADDRESS__
  // Under AddressSanitizer allocate exactly, so reading one element past the end is reported.
  return std::malloc(static_cast<size_t>(nbytes));
#endif
  char* raw = static_cast<char*>(std::malloc(static_cast<size_t>(nbytes + kAlignment)));
  if (raw == nullptr) return nullptr;
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kAlignment) & ~uintptr_t(kAlignment - 1));
  std::memcpy(aligned - sizeof(void*), &raw, sizeof(void*));
  return aligned;
}

void aligned_cpu_free(void* aligned) {
#ifdef __SANITIZE_ADDRESS__
  std::free(aligned);
  return;
#endif
  void* raw;
  std::memcpy(&raw, static_cast<char*>(aligned) - sizeof(void*), sizeof(void*));
  std::free(raw);
}

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
  if (device.is_cpu()) {
    data = aligned_cpu_alloc(nbytes);
    // PyTorch's text without its "[enforce fail at alloc_cpu.cpp:75] err == 0. " prefix (c10's
    // file and line); malloc fails only with ENOMEM.
    EMBER_CHECK(data != nullptr, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
                " bytes. Error code ", ENOMEM, " (", std::strerror(ENOMEM), ")");
    cpu_account().add(nbytes);
  } else {
    data = cuda::allocate(device.index, nbytes);  // counted by the device's caching allocator
  }
  if (AllocationObserver told = observer.load(std::memory_order_relaxed)) [[unlikely]]
    told(device, nbytes);
  return data;
}

void free_bytes(Device device, void* data, int64_t nbytes) {
  if (data == nullptr) return;
  if (device.is_cpu()) {
    aligned_cpu_free(data);
    cpu_account().remove(nbytes);
  } else {
    cuda::free(device.index, data);
  }
  if (AllocationObserver told = observer.load(std::memory_order_relaxed)) [[unlikely]]
    told(device, -nbytes);
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

}  // namespace ember
