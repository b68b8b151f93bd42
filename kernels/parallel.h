// parallel_for with a grain size, as ATen's (aten/src/ATen/ParallelOpenMP.h): the range [begin,
// end) is shared among OpenMP's threads only when it holds more than `grain` items, so an op on a
// small tensor never pays for waking threads it cannot use; kGrainSize is ATen's
// at::internal::GRAIN_SIZE. The range is cut into chunks, up to kChunksPerThread per thread and
// none smaller than a grain, which the threads claim one at a time from an atomic counter: a
// thread that starts late finds less left to do, instead of owning a fixed share the others wait
// for. When this thread itself waits for a CPU (contention.h), it runs every chunk alone: helpers
// would only take the cores from it, and the region's closing barrier would wait for a helper the
// OS has not run. The chunks depend only on the range, the grain and the thread count, never on
// which thread runs which or on the load, so a result is the same on every run.
//
// Why OpenMP's threads and not a pool of ember's own: oneDNN's products run on OpenMP's threads,
// which spin for a while after each product; a second set of threads beside them made the
// process wait for its own CPUs (a third of the time in exercise 2 on a quiet 2-core machine).
// An exception thrown in a chunk is rethrown on the calling thread (none may leave an OpenMP
// region); a parallel_for inside a chunk runs inline.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>

#include "contention.h"

namespace ember::kernels {

constexpr int64_t kGrainSize = 32768;

// More chunks than threads, so a thread that starts late still finds work, and one that is
// descheduled in the middle of a chunk holds back only a small part of the range.
constexpr int64_t kChunksPerThread = 4;

// True while this thread runs chunks of a parallel_for: a parallel_for inside one runs inline.
inline thread_local bool running_chunks = false;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  grain = std::max<int64_t>(grain, 1);
  if (n <= grain) {  // one grain: no thread to ask OpenMP about (most small ops end here)
    f(begin, end);
    return;
  }
  const int64_t grains = (n + grain - 1) / grain;
  const int64_t threads = std::min<int64_t>(omp_get_max_threads(), grains);
  if (threads <= 1 || running_chunks || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  const int64_t wanted_chunks = std::min(grains, threads * kChunksPerThread);
  const int64_t chunk_size = (n + wanted_chunks - 1) / wanted_chunks;
  const int64_t chunks = (n + chunk_size - 1) / chunk_size;
  std::atomic<int64_t> next_chunk{0};
  std::exception_ptr failure;
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  auto claim_and_run = [&] {
    const bool outer = running_chunks;
    running_chunks = true;
    for (int64_t chunk = next_chunk++; chunk < chunks && !failed.test(); chunk = next_chunk++) {
      try {
        f(begin + chunk * chunk_size, std::min(end, begin + (chunk + 1) * chunk_size));
      } catch (...) {
        if (!failed.test_and_set()) failure = std::current_exception();
      }
    }
    running_chunks = outer;
  };
  if (cores_are_contended()) {
    claim_and_run();
  } else {
#pragma omp parallel num_threads(threads)
    claim_and_run();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ember::kernels
