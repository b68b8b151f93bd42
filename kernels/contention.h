// Whether other work holds the cores this thread runs on. A oneDNN product runs in an OpenMP
// region (Debian's oneDNN uses OpenMP) whose threads each own a fixed share of the work and meet at
// a barrier at its end; when another process holds a core, a share waits for its thread's next
// scheduling slice and the product takes milliseconds instead of a fraction of one. The matmul
// kernel asks this before choosing its thread count, and runs on one thread when the answer is yes.
#pragma once

namespace ember::kernels {

// One thread's schedstat file: nanoseconds on a CPU and nanoseconds runnable but waiting for one.
// `read` is false where the kernel keeps no schedstat. engine/profiler/machine_load.cpp sums it
// over the process's threads.
struct SchedStat {
  bool read = false;
  double on_cpu_ns = 0, waiting_ns = 0;
};
SchedStat read_schedstat(const char* path);

// True when, over the last window of about 50 ms, the calling thread spent more than a tenth of
// the time it wanted to run waiting for a CPU (the kernel's run_delay, /proc/thread-self/schedstat).
// Reads that file at most once per window (a few microseconds); false where it cannot be read.
bool cores_are_contended();

}  // namespace ember::kernels
