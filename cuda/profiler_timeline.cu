// The GPU side of the profiler: CUDA events as GPU timestamps, and NVTX ranges.
//
// Why events: a kernel launch returns as soon as the kernel is queued, so the CPU clock around an
// op measures the queuing, not the work. A CUDA event recorded in the stream is stamped by the GPU
// when the stream reaches it, so the time between two events is the GPU's time for the work queued
// between them. PyTorch's legacy profiler (profile(use_cuda=True)) times every op this way, on the
// current device; ember records on cuda:0. Reading the stamps waits for the GPU, so the profiler
// reads them once, at stop(). Events are created once and reused: creating one costs more than
// recording it. The profile's start also makes cuBLAS's handles (blas_handles.h), so that no op's
// GPU time includes them. What it cannot do ahead is the first launch of each kernel, which loads
// that kernel (CUDA's lazy loading): profile after a warm-up step, as PyTorch's documentation advises.
//
// NVTX ranges cost nothing unless a tool such as Nsight Systems is attached, which then draws each
// range (an op's name) above the kernels it launched.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <mutex>
#include <vector>

#include "blas_handles.h"
#include "check_status.h"
#include "core/cuda_backend.h"
#include "core/error.h"

namespace ember::cuda {
namespace {

constexpr int kTimelineDevice = 0;
constexpr size_t kEventsMadeAhead = 512;  // two per op: more are made as needed

struct Timeline {
  std::mutex mutex;
  std::vector<cudaEvent_t> events;  // events[0] is the origin; kept for the next profile
  size_t used = 0;
};

Timeline& timeline() {
  static Timeline instance;  // its events are never destroyed: the driver reclaims them at exit
  return instance;
}

// Runs `record` with cuda:0 current, then makes the caller's device current again.
template <typename F>
void on_timeline_device(F&& record) {
  int previous = 0;
  check(cudaGetDevice(&previous), "cudaGetDevice");
  check(cudaSetDevice(kTimelineDevice), "cudaSetDevice");
  record();
  check(cudaSetDevice(previous), "cudaSetDevice");
}

// Records the next event of the timeline (Timeline::mutex held); returns its number.
int32_t record_next(Timeline& t) {
  on_timeline_device([&] {
    if (t.used == t.events.size()) {
      cudaEvent_t event;
      check(cudaEventCreate(&event), "cudaEventCreate");
      t.events.push_back(event);
    }
    check(cudaEventRecord(t.events[t.used]), "cudaEventRecord");
  });
  return static_cast<int32_t>(t.used++);
}

}  // namespace

void start_timeline() {
  Timeline& t = timeline();
  std::lock_guard lock(t.mutex);
  // What a first op would otherwise do between its two events, while the GPU waits: make cuBLAS's
  // handles (blas_handles.h) and enough events for a training step's ops.
  on_timeline_device([&] {
    kernels::cuda::create_blas_handles(kTimelineDevice);
    while (t.events.size() < kEventsMadeAhead) {
      cudaEvent_t event;
      check(cudaEventCreate(&event), "cudaEventCreate");
      t.events.push_back(event);
    }
  });
  t.used = 0;
  record_next(t);
}

int32_t mark_timeline() {
  Timeline& t = timeline();
  std::lock_guard lock(t.mutex);
  EMBER_INTERNAL_ASSERT(t.used > 0, "mark_timeline() before start_timeline()");
  return record_next(t);
}

std::vector<double> read_timeline() {
  Timeline& t = timeline();
  std::lock_guard lock(t.mutex);
  std::vector<double> microseconds(t.used, 0.0);
  if (t.used == 0) return microseconds;
  on_timeline_device([&] {
    check(cudaEventSynchronize(t.events[t.used - 1]), "cudaEventSynchronize");
    for (size_t i = 1; i < t.used; ++i) {
      float milliseconds = 0;
      check(cudaEventElapsedTime(&milliseconds, t.events[0], t.events[i]), "cudaEventElapsedTime");
      microseconds[i] = static_cast<double>(milliseconds) * 1000.0;
    }
  });
  return microseconds;
}

void push_nvtx_range(const char* name) { nvtxRangePushA(name); }
void pop_nvtx_range() { nvtxRangePop(); }

}  // namespace ember::cuda
