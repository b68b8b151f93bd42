// Recycled blocks: the small objects that every op makes and frees again (its result's TensorImpl,
// Storage and version counter, its autograd node) come from this thread's list of freed blocks of
// their size instead of from malloc, as the caching allocator hands out freed tensor bytes again
// (cpu_block_cache.h). A 1-element `a + b` with a graph spent as long in malloc and free as in
// its arithmetic; bench_tiny_ops counts the heap allocations left per op.
//
// Blocks come in powers of two from 64 to 1024 bytes. Each thread keeps at most
// kMaxBlocksPerSize of each size; past that, and for anything larger, blocks go to the heap.
// A block freed on another thread joins that thread's list. Under AddressSanitizer nothing is
// kept, so that it sees every use after free.
#pragma once
#include <cstddef>
#include <memory>
#include <utility>

namespace ember {

void* take_block(size_t bytes);                   // a block of at least `bytes`
void give_back_block(void* block, size_t bytes);  // `bytes` as given to take_block

// std::allocate_shared's allocator for them: one block holds the object and its reference counts.
template <typename T>
struct RecyclingAllocator {
  using value_type = T;
  RecyclingAllocator() = default;
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>&) {}
  T* allocate(size_t count) { return static_cast<T*>(take_block(count * sizeof(T))); }
  void deallocate(T* object, size_t count) { give_back_block(object, count * sizeof(T)); }
  template <typename U>
  bool operator==(const RecyclingAllocator<U>&) const {
    return true;
  }
};

// std::make_shared, from recycled blocks.
template <typename T, typename... Args>
std::shared_ptr<T> make_recycled(Args&&... args) {
  return std::allocate_shared<T>(RecyclingAllocator<T>(), std::forward<Args>(args)...);
}

}  // namespace ember
