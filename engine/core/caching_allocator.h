// The caching device allocator, PyTorch's CUDACachingAllocator in miniature. cudaMalloc and
// cudaFree are slow (they synchronise the device), so freed blocks are kept and handed out again:
//   - a request is rounded up to a multiple of 512 bytes (at least 512);
//   - requests up to 1 MiB come from the small pool, carved out of 2 MiB segments; larger ones
//     from the large pool: a 20 MiB segment for requests under 10 MiB, else the request rounded up
//     to a multiple of 2 MiB;
//   - the smallest free block that fits is taken (best fit) and split when the rest is usable
//     (small pool: at least 512 bytes left; large pool: more than 1 MiB), else handed out whole;
//   - a freed block merges with free neighbours of its segment; empty_cache() returns segments
//     that are wholly free to the device.
// memory_allocated is the bytes of blocks handed out (so one float costs 512), memory_reserved the
// bytes of all segments, as torch.cuda reports them. The device calls are injected (RawMemory),
// so the same code runs in the CPU-only tests with host memory standing in for the device.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "cuda_backend.h"

namespace ember::cuda {

constexpr int64_t kMinBlockSize = 512;        // every block is a multiple of this
constexpr int64_t kSmallSize = 1 << 20;       // largest request served by the small pool
constexpr int64_t kSmallBuffer = 2 << 20;     // small-pool segment size
constexpr int64_t kLargeBuffer = 20 << 20;    // segment for large requests under kMinLargeAlloc
constexpr int64_t kMinLargeAlloc = 10 << 20;  // from here a request gets its own segment ...
constexpr int64_t kRoundLarge = 2 << 20;      // ... rounded up to a multiple of this

int64_t round_size(int64_t nbytes);       // 512 * ceil(nbytes / 512), at least 512
int64_t allocation_size(int64_t nbytes);  // the segment a rounded request that finds no free block gets

struct RawMemory {
  std::function<void*(int64_t nbytes)> allocate;  // returns null when the device is out of memory
  std::function<void(void* data)> free;
  std::string device_name;  // "cuda:0", for the out-of-memory message
};

class CachingAllocator {
 public:
  explicit CachingAllocator(RawMemory raw) : raw_(raw) {}
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least nbytes (nullptr for 0); raises PyTorch's "CUDA out of memory" error.
  void* allocate(int64_t nbytes);
  void free(void* data);
  void empty_cache();  // frees every wholly free segment
  // Whether the bytes [begin, begin + nbytes) lie in one block handed out and not yet freed.
  bool holds(const void* begin, int64_t nbytes) const;
  MemoryStats stats() const;
  void reset_peak_stats();

 private:
  struct Block {
    char* data = nullptr;
    int64_t size = 0;
    bool small_pool = false;
    bool in_use = false;
    Block* previous = nullptr;  // neighbours in the same segment
    Block* next = nullptr;
  };
  struct BySize {  // best fit: the smallest block, then the lowest address
    bool operator()(const Block* a, const Block* b) const {
      return a->size != b->size ? a->size < b->size : a->data < b->data;
    }
  };
  using Pool = std::set<Block*, BySize>;

  Pool& pool(bool small) { return small ? small_pool_ : large_pool_; }
  Block* new_segment(int64_t rounded, bool small);
  void merge_into(Block* block, Block* neighbour);
  void release_free_segments();

  RawMemory raw_;
  mutable std::mutex mutex_;
  Pool small_pool_, large_pool_;
  std::map<void*, Block*> in_use_;
  MemoryStats stats_;
};

}  // namespace ember::cuda
