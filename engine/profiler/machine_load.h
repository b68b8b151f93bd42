// How busy the machine was while something was timed. A timing taken while other processes hold
// the CPUs measures the scheduler, not the code: a thread that waits 5 ms for a core adds 5 ms to
// whatever op it was running, and a parallel region waits for its slowest, descheduled thread. So
// the exercises, the benchmarks' harness and the roofline's calibration ask the kernel, around
// each measurement, how long this process's threads spent *runnable but waiting for a CPU* that
// another process held. Linux counts that per thread (/proc/self/task/*/schedstat: time on a CPU,
// time waiting in the run queue), so the figure is about this measurement, not about the last
// minute as the load average is.
//
// What separates a quiet machine from a busy one (measured on a 2-core Sapphire Rapids VM, around
// the exercises' measurements): on a quiet machine their threads waited 0-2% of their runnable
// time (7% once, while a build started beside them); beside two `yes > /dev/null` loops 50%,
// beside other processes' compilers 43-72%. Busy is more than kBusyWaitingFraction. Involuntary context
// switches do not separate them (quiet 56-240 a second, since this process's own threads take
// turns; loaded 140-280), so they are printed, not judged on. Where the kernel keeps no schedstat,
// the 1-minute load average stands in, a lagging figure: busy when it exceeds the CPUs by one
// (this process's own threads count in it too).
#pragma once
#include <cstdint>
#include <string>

namespace ember {

// This process's scheduler counters at one moment.
struct SchedulerClock {
  double wall_seconds = 0;           // steady clock
  double cpu_seconds = 0;            // all threads, on a CPU
  double waiting_seconds = 0;        // all threads, runnable but waiting for a CPU
  int64_t involuntary_switches = 0;  // all threads, taken off a CPU they still wanted
  bool counts_waiting = false;       // the kernel keeps schedstat (else waiting_seconds is 0)
};
SchedulerClock scheduler_clock();

// Busy: this process's threads waited for a CPU more than this share of the time they wanted one.
constexpr double kBusyWaitingFraction = 0.10;

// What happened between two clocks.
struct MachineLoad {
  double wall_seconds = 0;
  double cpu_seconds = 0;
  double waiting_seconds = 0;
  int64_t involuntary_switches = 0;
  bool counts_waiting = false;
  double load_average = 0;  // /proc/loadavg's 1-minute figure at the end, for the reader
  int cpus = 0;             // online CPUs

  // waiting / (on a CPU + waiting): 0 on a quiet machine.
  double waiting_fraction() const;
  bool busy() const;
  // "waited 31% of their time for a CPU (412 involuntary switches in 2.10 s; load average 3.91 on 2 CPUs)"
  std::string str() const;
};
MachineLoad machine_load_since(const SchedulerClock& start);

}  // namespace ember
