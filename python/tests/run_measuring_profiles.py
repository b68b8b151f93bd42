"""Runs a Python script read from stdin, as `python3 -` does, and says on stderr when a profile it
took was disturbed by the machine's load. A profile is wall-clock time: one taken while other
programs held the CPU measures them too, so test_chapter.py judges the chapter's ranking only from
undisturbed profiles, as demos/check_chapter_output.sh does for the C++ program. Each
`ember.profiler.profile` block is measured with machine_load.h's clock (this process's threads'
time waiting for a CPU), around exactly what the profiler recorded."""
import sys

import ember.profiler

loads = []
start, stop = ember.profiler.profile.start, ember.profiler.profile.stop


def measured_start(self):
    self._clock = ember.profiler.scheduler_clock()
    start(self)


def measured_stop(self):
    stop(self)
    loads.append(ember.profiler.machine_load_since(self._clock))


ember.profiler.profile.start, ember.profiler.profile.stop = measured_start, measured_stop
source = sys.stdin.read()
exec(compile(source, "<stdin>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
sys.stdout.flush()
for load in loads:
    if load.busy():
        print(f"chapter: other programs held the CPU during the profile (its threads {load})", file=sys.stderr)
