"""torch.profiler: ember's op profiler (engine/profiler/profiler.h). `with profile(...) as prof:`
records every op from the block's start to its end; prof.key_averages() gives PyTorch's rows
(key, count, self_cpu_time_total in microseconds, ...) and .table(sort_by=..., row_limit=...)
PyTorch's table. scheduler_clock / machine_load_since tell a profile taken on a busy machine from
a quiet one (engine/profiler/machine_load.h)."""
from ._C import _profiler
from ._C._profiler import ProfilerActivity, scheduler_clock, machine_load_since  # noqa: F401
from . import cuda


class profile:
    def __init__(self, activities=None, record_shapes=False, profile_memory=False, with_flops=False):
        if activities is None:
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda.is_available() else [])
        self._options = (list(activities), record_shapes, profile_memory, with_flops)
        self.profiler = None

    def start(self):
        self.profiler = _profiler.Profiler(*self._options)  # records from here

    def stop(self):
        self.profiler.stop()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exception):
        self.stop()
        return False

    def key_averages(self, group_by_input_shape=False):
        return self.profiler.key_averages(group_by_input_shape)

    def export_chrome_trace(self, path):
        self.profiler.export_chrome_trace(path)


class record_function:
    """A range of your own, shown in the profile like an op: `with record_function("data loading"):`."""

    def __init__(self, name):
        self.name = name
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
