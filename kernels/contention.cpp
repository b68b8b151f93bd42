// /proc/thread-self/schedstat holds three numbers for the calling thread: nanoseconds on a CPU,
// nanoseconds runnable but waiting for one (run_delay), and time slices run. Their growth over a
// window says what share of its runnable time the thread waited: about 0 on an idle machine,
// 1/3 with two busy processes on two cores and one thread of ours, 1/2 with two of ours. The
// verdict is per thread, as the counters are, and is kept between readings.
#include "contention.h"

#include <chrono>
#include <cstdio>

namespace ember::kernels {

namespace {

constexpr auto kWindow = std::chrono::milliseconds(50);
constexpr double kContendedShare = 0.1;   // waited more than this share of its runnable time
constexpr double kLeastRunnableNs = 5e6;  // a window the thread mostly slept through says nothing

}  // namespace

SchedStat read_schedstat(const char* path) {
  SchedStat stat;
  if (FILE* file = std::fopen(path, "r")) {
    unsigned long long on_cpu = 0, waiting = 0;
    stat.read = std::fscanf(file, "%llu %llu", &on_cpu, &waiting) == 2;
    stat.on_cpu_ns = static_cast<double>(on_cpu);
    stat.waiting_ns = static_cast<double>(waiting);
    std::fclose(file);
  }
  return stat;
}

bool cores_are_contended() {
  thread_local std::chrono::steady_clock::time_point window_start;
  thread_local SchedStat at_start;
  thread_local bool contended = false;
  const auto now = std::chrono::steady_clock::now();
  if (now - window_start < kWindow) return contended;
  const SchedStat stat = read_schedstat("/proc/thread-self/schedstat");
  if (!stat.read) return contended = false;
  const double waited = stat.waiting_ns - at_start.waiting_ns;
  const double runnable = waited + stat.on_cpu_ns - at_start.on_cpu_ns;
  if (at_start.read && runnable >= kLeastRunnableNs) contended = waited > kContendedShare * runnable;
  window_start = now;
  at_start = stat;
  return contended;
}

}  // namespace ember::kernels
