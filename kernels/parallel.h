// parallel_for with a grain size, as ATen's (aten/src/ATen/ParallelOpenMP.h): the range [begin,
// end) is split over OpenMP's threads only when it holds more than `grain` items, so an op on a
// small tensor never pays for waking threads it cannot use. kGrainSize is ATen's
// at::internal::GRAIN_SIZE. Each thread gets one contiguous chunk; an exception thrown in a chunk
// is caught and rethrown on the calling thread (an exception may not leave an OpenMP region).
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>

namespace ember::kernels {

constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int64_t threads = std::min<int64_t>(omp_get_max_threads(), (n + grain - 1) / grain);
  if (threads <= 1 || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  std::exception_ptr failure;
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
#pragma omp parallel num_threads(threads)
  {
    const int64_t chunk = (n + omp_get_num_threads() - 1) / omp_get_num_threads();
    const int64_t first = begin + omp_get_thread_num() * chunk;
    if (first < end) {
      try {
        f(first, std::min(end, first + chunk));
      } catch (...) {
        if (!failed.test_and_set()) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace ember::kernels
