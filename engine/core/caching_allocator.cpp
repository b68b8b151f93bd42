// The caching device allocator's pools, splitting and merging (caching_allocator.h).
#include "caching_allocator.h"

#include <algorithm>
#include <iterator>

#include "error.h"

namespace ember::cuda {

int64_t round_size(int64_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((nbytes + kMinBlockSize - 1) / kMinBlockSize);
}

int64_t allocation_size(int64_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

namespace {
std::string mebibytes(int64_t nbytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(nbytes) / (1 << 20));
  return text;
}
}  // namespace

CachingAllocator::~CachingAllocator() {
  // Blocks still in use at exit belong to tensors that outlive the allocator; their segments stay.
  release_free_segments();
}

CachingAllocator::Block* CachingAllocator::new_segment(int64_t rounded, bool small) {
  const int64_t size = allocation_size(rounded);
  void* data = raw_.allocate(size);
  if (data == nullptr) {  // free what the cache holds and try once more, as PyTorch does
    release_free_segments();
    data = raw_.allocate(size);
  }
  EMBER_CHECK(data != nullptr, "CUDA out of memory. Tried to allocate ", mebibytes(rounded), " (", raw_.device_name,
              "; ", mebibytes(stats_.allocated), " already allocated; ", mebibytes(stats_.reserved),
              " reserved in total by ember)");
  stats_.reserved += size;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
  ++stats_.segments_allocated;
  return new Block{static_cast<char*>(data), size, small};
}

void* CachingAllocator::allocate(int64_t nbytes) {
  if (nbytes == 0) return nullptr;
  std::lock_guard lock(mutex_);
  const int64_t rounded = round_size(nbytes);
  const bool small = rounded <= kSmallSize;
  Pool& free_blocks = pool(small);

  Block key{nullptr, rounded};
  Block* block;
  if (auto it = free_blocks.lower_bound(&key); it != free_blocks.end()) {
    block = *it;
    free_blocks.erase(it);
  } else {
    block = new_segment(rounded, small);
  }

  const int64_t remaining = block->size - rounded;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
    Block* rest = new Block{block->data + rounded, remaining, small, false, block, block->next};
    if (block->next) block->next->previous = rest;
    block->next = rest;
    block->size = rounded;
    free_blocks.insert(rest);
  }
  block->in_use = true;
  in_use_[block->data] = block;
  stats_.allocated += block->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return block->data;
}

void CachingAllocator::merge_into(Block* block, Block* neighbour) {
  if (neighbour == nullptr || neighbour->in_use) return;
  pool(block->small_pool).erase(neighbour);
  if (neighbour == block->previous) {
    block->data = neighbour->data;
    block->previous = neighbour->previous;
    if (block->previous) block->previous->next = block;
  } else {
    block->next = neighbour->next;
    if (block->next) block->next->previous = block;
  }
  block->size += neighbour->size;
  delete neighbour;
}

void CachingAllocator::free(void* data) {
  if (data == nullptr) return;
  std::lock_guard lock(mutex_);
  auto it = in_use_.find(data);
  EMBER_INTERNAL_ASSERT(it != in_use_.end(), "freeing a pointer the caching allocator did not hand out");
  Block* block = it->second;
  in_use_.erase(it);
  stats_.allocated -= block->size;
  block->in_use = false;
  merge_into(block, block->previous);
  merge_into(block, block->next);
  pool(block->small_pool).insert(block);
}

void CachingAllocator::release_free_segments() {
  for (Pool* free_blocks : {&small_pool_, &large_pool_}) {
    for (auto it = free_blocks->begin(); it != free_blocks->end();) {
      Block* block = *it;
      if (block->previous || block->next) {  // part of a segment still partly in use
        ++it;
        continue;
      }
      raw_.free(block->data);
      stats_.reserved -= block->size;
      it = free_blocks->erase(it);
      delete block;
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_free_segments();
}

bool CachingAllocator::holds(const void* begin, int64_t nbytes) const {
  std::lock_guard lock(mutex_);
  auto after = in_use_.upper_bound(const_cast<void*>(begin));  // the first block starting past begin
  if (after == in_use_.begin()) return false;
  const Block* block = std::prev(after)->second;
  const auto end = reinterpret_cast<uintptr_t>(begin) + static_cast<uintptr_t>(nbytes);
  return end <= reinterpret_cast<uintptr_t>(block->data) + static_cast<uintptr_t>(block->size);
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak_stats() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

}  // namespace ember::cuda
