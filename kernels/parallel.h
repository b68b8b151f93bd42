// parallel_for with a grain size, as ATen's (aten/src/ATen/Parallel.h): the range [begin, end) is
// shared among threads only when it holds more than `grain` items, so an op on a small tensor never
// pays for waking threads it cannot use; kGrainSize is ATen's at::internal::GRAIN_SIZE. The range
// is cut into chunks, up to kChunksPerThread per thread and none smaller than a grain, which the
// calling thread and the pool's helpers claim one at a time (thread_pool.h): when other processes
// hold the cores, the caller does the chunks a helper has not started instead of waiting for it.
// When this thread itself waits for a CPU (contention.h), the caller runs every chunk and wakes no
// helper: a helper would only take a core from the caller. The chunks depend only on the range,
// the grain and the thread count, never on which thread runs which or on the load, so a result is
// the same on every run. An exception thrown in a chunk is rethrown on the calling thread. A
// parallel_for inside a chunk runs inline.
#pragma once
#include <algorithm>
#include <cstdint>

#include "contention.h"
#include "thread_pool.h"

namespace ember::kernels {

constexpr int64_t kGrainSize = 32768;

// More chunks than threads, so a helper that starts late still finds work, and one that is
// descheduled in the middle of a chunk holds back only a small part of the range.
constexpr int64_t kChunksPerThread = 4;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int64_t grains = (n + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1);
  const int64_t threads = std::min<int64_t>(intra_op_threads(), grains);
  if (threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int64_t wanted_chunks = std::min({grains, threads * kChunksPerThread, ThreadPool::kMaxChunks});
  const int64_t chunk_size = (n + wanted_chunks - 1) / wanted_chunks;
  auto chunk = [&](int64_t index) {
    const int64_t first = begin + index * chunk_size;
    f(first, std::min(end, first + chunk_size));
  };
  const int helpers = cores_are_contended() ? 0 : static_cast<int>(threads - 1);
  intra_op_pool(helpers).run((n + chunk_size - 1) / chunk_size, helpers,
                             [](void* context, int64_t index) { (*static_cast<decltype(chunk)*>(context))(index); },
                             &chunk);
}

}  // namespace ember::kernels
