// One pool behind one lock: free lists per size class (an array for the 2048 small classes, a map
// for the large ones), the bytes cached and reserved, the count of blocks taken from the OS, and
// the CPU's account (bytes allocated and their peak). Taking a cached block is a lock, a pop, a
// count and an unlock. The lock is held for a few instructions only, so it is a spin lock: with
// std::mutex (whose unlock is a second atomic read-modify-write) an allocation and free took about
// 20% longer than malloc's; with this lock they take about as long. The account is kept under the
// same lock rather than in atomics of its own: each atomic add is one more locked instruction, and
// two of them per tensor cost a 1-element add a few percent of its time.
#include "cpu_block_cache.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/caching_allocator.h"
#include "error.h"

namespace ember::cpu_block_cache {
namespace {

// The size classes are the CUDA caching allocator's rounding (cuda/caching_allocator.h): a multiple
// of 512 bytes up to 1 MiB (the small pool), a multiple of 2 MiB above.
using cuda::kMinBlockSize;
using cuda::kRoundLarge;
using cuda::kSmallSize;
constexpr int64_t kMaxCachedBytes = int64_t{1} << 30;  // free blocks beyond 1 GiB go back to the OS
constexpr int64_t kAlignment = 64;                     // PyTorch's CPU alignment (c10::gAlignment)
// A block of the large pool starts on a page. aligned_alloc(64, ...) puts a large block 64 bytes
// into its first page, so each 4 KiB row of a [*, 1024] float tensor lay across two pages, and the
// hardware prefetchers stop at page boundaries: memory-bound passes over such tensors ran 8 to 10%
// slower than over page-aligned ones (the compiled block, on Sapphire Rapids).
constexpr int64_t kPageAlignment = 4096;

int64_t size_class(int64_t nbytes) {
  if (nbytes <= kSmallSize) return cuda::round_size(nbytes);
  return (nbytes + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

#ifdef __SANITIZE_ADDRESS__
constexpr bool kCaching = false;  // exact, uncached blocks: AddressSanitizer sees every overrun
#else
constexpr bool kCaching = true;
#endif

class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire))
      while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

struct Pool {
  SpinLock mutex;
  std::vector<void*> small[kSmallSize / kMinBlockSize];   // index: size class / 512 - 1
  std::unordered_map<int64_t, std::vector<void*>> large;  // size class -> free blocks
  int64_t cached_bytes = 0;
  // The figures a CUDA caching allocator reports too: `allocated` as requested, not rounded (what
  // memory_allocated reports), `reserved` in whole size classes, in use plus cached, and
  // `segments_allocated` the blocks ever taken from the OS.
  cuda::MemoryStats stats;

  void count_allocated(int64_t nbytes) {
    stats.allocated += nbytes;
    stats.peak_allocated = std::max(stats.peak_allocated, stats.allocated);
  }
  void count_reserved(int64_t block_size) {
    stats.reserved += block_size;
    stats.peak_reserved = std::max(stats.peak_reserved, stats.reserved);
  }

  std::vector<void*>& free_blocks(int64_t block_size) {
    if (block_size <= kSmallSize) return small[block_size / kMinBlockSize - 1];
    return large[block_size];
  }
};

// Never destroyed: tensors that outlive main (a static's) still free their blocks into it.
Pool& pool() {
  static Pool* const the_pool = new Pool;
  return *the_pool;
}

void* take_from_os(int64_t block_size) {
  const int64_t alignment = block_size > kSmallSize ? kPageAlignment : kAlignment;
  return kCaching ? std::aligned_alloc(static_cast<size_t>(alignment), static_cast<size_t>(block_size))
                  : std::malloc(static_cast<size_t>(block_size));
}

// The out-of-memory error unless `given`: PyTorch's text without its "[enforce fail at
// alloc_cpu.cpp:75] err == 0. " prefix (c10's file and line); malloc fails only with ENOMEM.
void check_given(bool given, int64_t nbytes) {
  EMBER_CHECK(given, "DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
              " bytes. Error code ", ENOMEM, " (", std::strerror(ENOMEM), ")");
}

// A new block of block_size bytes for a request of nbytes. When the OS has none, the cached blocks
// are given back and the request made once more, as PyTorch's CUDA caching allocator frees its
// cache and retries before it reports out of memory: up to 1 GiB of freed blocks may be cached,
// and with nothing in use a request must not fail because of them. Cold and out of line:
// allocate()'s cache hit is on every op's path, and with this retry inlined into it that path's
// code grew.
[[gnu::cold, gnu::noinline]] void* from_os(int64_t block_size, int64_t nbytes) {
  void* block = take_from_os(block_size);
  if (block == nullptr && kCaching) {
    empty();
    block = take_from_os(block_size);
  }
  check_given(block != nullptr, nbytes);
  return block;
}

// Whether nbytes of address space can be mapped now: mapped and unmapped at once, never touched.
// Asked of the OS itself, not of malloc, which may hand out a free chunk it already holds.
bool can_map(int64_t nbytes) {
  void* range =
      mmap(nullptr, static_cast<size_t>(nbytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) return false;
  munmap(range, static_cast<size_t>(nbytes));
  return true;
}

}  // namespace

void* allocate(int64_t nbytes) {
  const int64_t block_size = kCaching ? size_class(nbytes) : nbytes;
  Pool& p = pool();
  {
    std::lock_guard<SpinLock> lock(p.mutex);
    if (kCaching) {
      std::vector<void*>& blocks = p.free_blocks(block_size);
      if (!blocks.empty()) {
        void* block = blocks.back();
        blocks.pop_back();
        p.cached_bytes -= block_size;
        p.count_allocated(nbytes);
        return block;
      }
    }
  }
  void* block = from_os(block_size, nbytes);
  std::lock_guard<SpinLock> lock(p.mutex);
  p.count_reserved(block_size);
  ++p.stats.segments_allocated;
  p.count_allocated(nbytes);
  return block;
}

void release(void* block, int64_t nbytes) {
  const int64_t block_size = kCaching ? size_class(nbytes) : nbytes;
  Pool& p = pool();
  {
    std::lock_guard<SpinLock> lock(p.mutex);
    p.stats.allocated -= nbytes;
    if (kCaching && p.cached_bytes + block_size <= kMaxCachedBytes) {
      p.free_blocks(block_size).push_back(block);
      p.cached_bytes += block_size;
      return;
    }
    p.stats.reserved -= block_size;
  }
  std::free(block);
}

void empty() {
  Pool& p = pool();
  std::vector<void*> to_free;
  {
    std::lock_guard<SpinLock> lock(p.mutex);
    for (std::vector<void*>& blocks : p.small) {
      to_free.insert(to_free.end(), blocks.begin(), blocks.end());
      blocks = {};
    }
    for (auto& [block_size, blocks] : p.large) to_free.insert(to_free.end(), blocks.begin(), blocks.end());
    p.large.clear();
    p.stats.reserved -= p.cached_bytes;
    p.cached_bytes = 0;
  }
  for (void* block : to_free) std::free(block);
}

void check_available(int64_t nbytes) {
  if (can_map(nbytes)) return;
  empty();
  check_given(can_map(nbytes), nbytes);
}

cuda::MemoryStats stats() {
  std::lock_guard<SpinLock> lock(pool().mutex);
  return pool().stats;
}

void reset_peak_stats() {
  std::lock_guard<SpinLock> lock(pool().mutex);
  cuda::MemoryStats& stats = pool().stats;
  stats.peak_allocated = stats.allocated;
  stats.peak_reserved = stats.reserved;
}

}  // namespace ember::cpu_block_cache
