// Reading the scheduler's counters for this process (machine_load.h says why).
#include "machine_load.h"

#include "kernels/contention.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace ember {

SchedulerClock scheduler_clock() {
  SchedulerClock clock;
  clock.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // Each thread's line: nanoseconds on a CPU, nanoseconds waiting in the run queue, time slices.
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
    const kernels::SchedStat stat = kernels::read_schedstat((task.path() / "schedstat").c_str());
    if (stat.read) {
      clock.cpu_seconds += stat.on_cpu_ns * 1e-9;
      clock.waiting_seconds += stat.waiting_ns * 1e-9;
      clock.counts_waiting = true;
    }
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    clock.involuntary_switches = usage.ru_nivcsw;
    if (!clock.counts_waiting)
      clock.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                          static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  }
  return clock;
}

double MachineLoad::waiting_fraction() const {
  const double wanted = cpu_seconds + waiting_seconds;
  return wanted > 0 ? waiting_seconds / wanted : 0.0;
}

bool MachineLoad::busy() const {
  return counts_waiting ? waiting_fraction() > kBusyWaitingFraction : load_average > cpus + 1;
}

std::string MachineLoad::str() const {
  char text[200];
  if (counts_waiting)
    std::snprintf(text, sizeof text,
                  "waited %.0f%% of their time for a CPU (%lld involuntary switches in %.2f s; load average %.2f on "
                  "%d CPUs)",
                  100 * waiting_fraction(), static_cast<long long>(involuntary_switches), wall_seconds, load_average,
                  cpus);
  else
    std::snprintf(text, sizeof text,
                  "cannot say how long they waited for a CPU (no schedstat); load average %.2f on %d CPUs",
                  load_average, cpus);
  return text;
}

MachineLoad machine_load_since(const SchedulerClock& start) {
  const SchedulerClock end = scheduler_clock();
  MachineLoad load;
  load.wall_seconds = end.wall_seconds - start.wall_seconds;
  // A thread that ended in between takes its counts with it: never report less than nothing.
  load.cpu_seconds = std::max(0.0, end.cpu_seconds - start.cpu_seconds);
  load.waiting_seconds = std::max(0.0, end.waiting_seconds - start.waiting_seconds);
  load.involuntary_switches = std::max<int64_t>(0, end.involuntary_switches - start.involuntary_switches);
  load.counts_waiting = start.counts_waiting && end.counts_waiting;
  std::ifstream("/proc/loadavg") >> load.load_average;
  load.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return load;
}

}  // namespace ember
