// This thread's free lists. They are plain data, so they stay usable until the thread's very end:
// a block freed by a thread_local destroyed after the lists were drained goes straight to the heap.
#include "recycled_blocks.h"

#include <algorithm>
#include <bit>
#include <new>

namespace ember {
namespace {

constexpr size_t kSmallestBlock = 64;
constexpr int kSizes = 5;  // 64, 128, 256, 512 and 1024 bytes
constexpr size_t kMaxBlocksPerSize = 1024;

#ifdef __SANITIZE_ADDRESS__
constexpr bool kRecycling = false;
#else
constexpr bool kRecycling = true;
#endif

struct FreeBlock {
  FreeBlock* next;
};

struct FreeLists {
  FreeBlock* first[kSizes];
  size_t count[kSizes];
  bool drained;     // the thread is ending: blocks go back to the heap
  bool will_drain;  // the drain at thread exit is registered
};
thread_local FreeLists lists{};

// Which list holds blocks for `bytes`; -1 when none does.
int size_index(size_t bytes) {
  if (!kRecycling || bytes > kSmallestBlock << (kSizes - 1)) return -1;
  return std::countr_zero(std::bit_ceil(std::max(bytes, kSmallestBlock))) - std::countr_zero(kSmallestBlock);
}

struct DrainAtThreadExit {
  ~DrainAtThreadExit() {
    for (FreeBlock*& first : lists.first)
      while (FreeBlock* block = first) {
        first = block->next;
        ::operator delete(block);
      }
    lists.drained = true;
  }
};

}  // namespace

void* take_block(size_t bytes) {
  const int index = size_index(bytes);
  if (index < 0) return ::operator new(bytes);
  if (FreeBlock* block = lists.first[index]) {
    lists.first[index] = block->next;
    --lists.count[index];
    return block;
  }
  return ::operator new(kSmallestBlock << index);
}

void give_back_block(void* block, size_t bytes) {
  const int index = size_index(bytes);
  if (index < 0 || lists.drained || lists.count[index] == kMaxBlocksPerSize) {
    ::operator delete(block);
    return;
  }
  if (!lists.will_drain) {
    thread_local DrainAtThreadExit drain;
    lists.will_drain = true;
  }
  lists.first[index] = new (block) FreeBlock{lists.first[index]};
  ++lists.count[index];
}

}  // namespace ember
