// How busy the machine was while something was timed (engine/machine_load.h): busy is decided by
// the share of their runnable time this process's threads spent waiting for a CPU, and a reader
// sees the figures it was decided on.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

TEST_CASE("the machine counts as busy when this process's threads waited for a CPU more than a tenth of the time",
          "[profiler]") {
  MachineLoad load{.wall_seconds = 2, .cpu_seconds = 1.9, .waiting_seconds = 0.1, .counts_waiting = true};
  CHECK(load.waiting_fraction() == Approx(0.05));
  CHECK_FALSE(load.busy());
  load.waiting_seconds = 1.9;  // two `yes` loops on two cores: half the time waiting
  CHECK(load.waiting_fraction() == Approx(0.5));
  CHECK(load.busy());
  CHECK(MachineLoad{}.waiting_fraction() == 0);  // nothing measured: nothing waited
  CHECK_FALSE(MachineLoad{}.busy());
}

TEST_CASE("without the kernel's wait counts, busy falls back to the load average over the CPUs", "[profiler]") {
  MachineLoad load{.wall_seconds = 2, .cpu_seconds = 2, .counts_waiting = false, .load_average = 2.5, .cpus = 2};
  CHECK_FALSE(load.busy());  // this process's own two threads, and a little more
  load.load_average = 4.1;   // two more processes wanting a CPU all along
  CHECK(load.busy());
  CHECK(load.str() == "cannot say how long they waited for a CPU (no schedstat); load average 4.10 on 2 CPUs");
}

TEST_CASE("the load prints the figures it was judged on", "[profiler]") {
  const MachineLoad load{.wall_seconds = 2.1,
                         .cpu_seconds = 3,
                         .waiting_seconds = 1,
                         .involuntary_switches = 412,
                         .counts_waiting = true,
                         .load_average = 3.91,
                         .cpus = 2};
  CHECK(load.str() ==
        "waited 25% of their time for a CPU (412 involuntary switches in 2.10 s; load average 3.91 on 2 CPUs)");
}

TEST_CASE("the scheduler's counters for this process only grow", "[profiler]") {
  const SchedulerClock start = scheduler_clock();
  Tensor sum = zeros({1000});
  for (int i = 0; i < 200; ++i) sum += ones({1000});
  const MachineLoad load = machine_load_since(start);
  CHECK(load.wall_seconds > 0);
  CHECK(load.cpu_seconds + load.waiting_seconds > 0);  // the work took time on a CPU, or waiting for one
  CHECK(load.cpu_seconds >= 0);
  CHECK(load.waiting_seconds >= 0);
  CHECK(load.involuntary_switches >= 0);
  CHECK(load.cpus >= 1);
  CHECK(sum[0].item<float>() == 200);
}
