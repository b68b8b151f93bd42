"""torch.profiler: ember's op profiler (engine/profiler/profiler.h) by PyTorch 1.13's names.
`with profile(...) as prof:` records every op from the block's start to its end; with a
schedule(...), prof.step() marks each step, and only the steps the schedule calls active are
recorded, on_trace_ready(prof) seeing each finished cycle, as torch/profiler/profiler.py does it.
prof.key_averages() gives PyTorch's rows (key, count, self_cpu_time_total in microseconds, ...)
and .table(sort_by=..., row_limit=...) PyTorch's table. scheduler_clock / machine_load_since
tell a profile taken on a busy machine from a quiet one (engine/profiler/machine_load.h)."""
from enum import Enum
from functools import partial
from warnings import warn

from ._C import _profiler
from ._C._profiler import ProfilerActivity, scheduler_clock, machine_load_since  # noqa: F401
from . import _C


def supported_activities():
    """What ember can record here: the CPU's ops, and the GPU's time where there is a GPU."""
    return set(_profiler.supported_activities())


def kineto_available():
    """ember records with its own profiler, not PyTorch's Kineto library."""
    return _profiler.kineto_available()


class ProfilerAction(Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """torch 1.13's schedule: skip `skip_first` steps, then cycles of `wait` idle steps, `warmup`
    steps and `active` recorded ones, `repeat` times (0: until the profile ends)."""
    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, \
        "Invalid profiler schedule arguments"
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


class profile:
    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        activities_set = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warn("use_cuda is deprecated, use activities argument instead")
            if use_cuda:
                activities_set.add(ProfilerActivity.CUDA)
            elif ProfilerActivity.CUDA in activities_set:
                activities_set.remove(ProfilerActivity.CUDA)
        assert len(activities_set) > 0, "No valid profiler activities found"
        order = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        self._options = (sorted(activities_set, key=order.index), record_shapes, profile_memory, with_flops)
        self.profiler = None
        self.schedule = schedule or _default_schedule_fn
        self.record_steps = schedule is not None  # a ProfilerStep#N range around each step
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        A = ProfilerAction
        prepare, start, stop, ready = self.prepare_trace, self.start_trace, self.stop_trace, self._trace_ready
        self.action_map = {  # (previous action, current action): what to do between them, as torch's
            (A.NONE, A.WARMUP): [prepare], (A.NONE, A.RECORD): [prepare, start],
            (A.NONE, A.RECORD_AND_SAVE): [prepare, start],
            (A.WARMUP, A.NONE): [partial(warn, "Incorrect schedule: WARMUP followed by NONE"), start, stop],
            (A.WARMUP, A.RECORD): [start], (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [partial(warn, "Incorrect schedule: RECORD followed by NONE"), stop],
            (A.RECORD, A.WARMUP): [partial(warn, "Incorrect schedule: RECORD followed by WARMUP"), stop],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready], (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready, prepare],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, prepare, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, prepare, start],
            (A.WARMUP, None): [start, stop], (A.RECORD, None): [stop, ready], (A.RECORD_AND_SAVE, None): [stop, ready],
        }

    # ember's profiler has nothing to warm up: preparing a trace forgets the last one, starting it
    # records from there (a C++ Profiler), stopping it ends the recording.
    def prepare_trace(self):
        self.profiler = None

    def start_trace(self):
        self.profiler = _profiler.Profiler(*self._options)

    def stop_trace(self):
        if self.profiler is not None:
            self.profiler.stop()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        self._transit_action(self.current_action, None)

    def step(self):
        """Signals the profiler that the next profiling step has started."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
        prev_action = self.current_action
        cur_step = self.step_num
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(cur_step))
            self.step_rec_fn.__enter__()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exception):
        self.stop()
        return False

    def events(self):
        """The recorded events in start order (torch's EventList of FunctionEvents: name, thread, time_range,
        input_shapes)."""
        return self.profiler.events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self.profiler.key_averages(group_by_input_shape)

    def export_chrome_trace(self, path):
        self.profiler.export_chrome_trace(path)

    def export_memory_timeline(self, path, device=None):
        """The memory of `device` by category over time (parameter, optimizer state, input, temporary,
        activation, gradient, autograd detail), needing profile_memory=True: by the path's suffix
        .json (torch's [times, sizes] points), .png (a chart drawn by gnuplot) or .html (one page, the
        chart as inline SVG). No device: "cuda:0" where a GPU is, else "cpu", as torch chooses."""
        self.profiler.export_memory_timeline(path, device)


class record_function:
    """A range of your own, shown in the profile like an op: `with record_function("data loading"):`."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._scopes = []

    def __enter__(self):
        scope = _profiler._RecordFunction(self.name)
        scope.__enter__()
        self._scopes.append(scope)
        return self

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)


class itt:
    """torch.profiler.itt: Intel ITT ranges for VTune, which ember does not emit."""

    @staticmethod
    def is_available():
        return False
