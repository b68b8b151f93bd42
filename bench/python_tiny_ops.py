"""The per-op cost of ember from Python against PyTorch 1.13's from Python, side by side in one run:
`a + b` on 1-element float32 tensors in a Python loop (what a Python program pays per small op:
the interpreter's call, the binding's argument conversion, ember's dispatcher, an allocation).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_tiny_ops.py [--rounds 9] [--calls 100000]

Like bench/harness.h: both sides are warmed up, then timed in interleaved rounds (ember, torch,
ember, ...) so a slow patch of the machine hits both alike; it prints medians and fastest rounds
per op and the ratio ember/torch (below 1: ember is faster), and how long this process waited for
a CPU other programs held while it measured (engine/profiler/machine_load.h): above 10% the
figures measure the load as much as the code. Outputs are compared before anything is timed.
A figure, not a test: it never fails on time. Needs Debian's python3-torch."""
import argparse
import statistics
import sys
import time

import ember

try:
    import torch
except ImportError:
    sys.exit("python_tiny_ops: needs python3-torch (apt-get install python3-torch) for the side-by-side figures")


def add_loop(a, b, calls):
    start = time.perf_counter_ns()
    for _ in range(calls):
        a + b
    return (time.perf_counter_ns() - start) / calls


def empty_loop(a, b, calls):
    start = time.perf_counter_ns()
    for _ in range(calls):
        pass
    return (time.perf_counter_ns() - start) / calls


def cases():
    """(name, function, ember operands, torch operands)"""
    out = []
    for requires_grad in (False, True):
        name = "a + b, 1 element" + (", requires_grad" if requires_grad else ", grad off")
        out.append((name, add_loop,
                    (ember.ones(1, requires_grad=requires_grad), ember.full((1,), 2.0)),
                    (torch.ones(1, requires_grad=requires_grad), torch.full((1,), 2.0))))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=100_000)
    options = parser.parse_args()

    for name, _, (ea, eb), (ta, tb) in cases():  # the same values before any time is taken
        assert (ea + eb).tolist() == (ta + tb).tolist() == [3.0], name
        assert str(ea + eb) == str(ta + tb), (str(ea + eb), str(ta + tb))

    with open("/proc/loadavg") as f:
        load_before = f.read().split()[0]
    clock = ember.profiler.scheduler_clock()
    loop_overhead = statistics.median(empty_loop(None, None, options.calls) for _ in range(5))
    print(f"ember vs PyTorch {torch.__version__} from Python {sys.version.split()[0]}: {options.rounds} interleaved "
          f"rounds of {options.calls} calls; an empty loop iteration costs {loop_overhead:.0f} ns (included below)")
    print(f"{'case':40} {'ember median':>13} {'torch median':>13} {'ratio':>6}   {'ember min':>10} {'torch min':>10} "
          f"{'ratio':>6}")
    for name, function, ember_operands, torch_operands in cases():
        function(*ember_operands, options.calls // 10)  # warm-up
        function(*torch_operands, options.calls // 10)
        ember_times, torch_times = [], []
        for _ in range(options.rounds):
            ember_times.append(function(*ember_operands, options.calls))
            torch_times.append(function(*torch_operands, options.calls))
        e, t = statistics.median(ember_times), statistics.median(torch_times)
        print(f"{name:40} {e:10.0f} ns {t:10.0f} ns {e / t:6.2f}   {min(ember_times):7.0f} ns {min(torch_times):7.0f} ns "
              f"{min(ember_times) / min(torch_times):6.2f}")
    load = ember.profiler.machine_load_since(clock)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[0]
    verdict = "busy: the figures measure the load too" if load.busy() else "quiet"
    print(f"machine while measuring: {verdict}; this process {load}; 1-minute load average {load_before} before, "
          f"{load_after} after")


if __name__ == "__main__":
    main()
