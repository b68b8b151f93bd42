"""torch.cuda: whether a GPU is there, and ember's caching allocator's counters for it
(engine/core/allocator.h). Without a CUDA build or a GPU the counters are 0, as torch's are."""
from .. import _C
from . import amp  # noqa: F401


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def synchronize(device=None):
    _C._cuda_synchronize()


def _device(device):
    if device is None:
        return _C.device("cuda", 0)
    if isinstance(device, int):
        return _C.device("cuda", device)
    return _C.device(device) if isinstance(device, str) else device


def memory_allocated(device=None):
    return _C.memory_allocated(_device(device))


def max_memory_allocated(device=None):
    return _C.max_memory_allocated(_device(device))


def memory_reserved(device=None):
    return _C.memory_reserved(_device(device))


def reset_peak_memory_stats(device=None):
    _C.reset_peak_memory_stats(_device(device))


def empty_cache():
    _C.empty_cache()
