"""torch.autocast as PyTorch 1.13 writes it (torch/amp/autocast_mode.py): a context manager or a
decorator that, on entering, remembers autocast's state for its device and sets its own through
the functions of autocast's state (torch.set_autocast_cpu_enabled, ..., bound from
engine/autocast/autocast.h), and on leaving puts the remembered state back; leaving the outermost
region empties the cast cache. So its warnings, errors and nesting are torch's own."""
import functools
import warnings

from . import _C


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = device_type
        if self.device == "cuda":
            self.fast_dtype = _C.get_autocast_gpu_dtype()
        elif self.device == "cpu":
            self.fast_dtype = _C.get_autocast_cpu_dtype()
        else:
            raise RuntimeError("User specified autocast device_type must be 'cuda' or 'cpu'")
        self._cache_enabled = _C.is_autocast_cache_enabled()
        if enabled and self.device == "cuda" and not _C._cuda_is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
            enabled = False
        if dtype is not None:
            self.fast_dtype = dtype
        if cache_enabled is not None:
            self._cache_enabled = cache_enabled
        if self.device == "cpu" and self.fast_dtype != _C.dtype.bfloat16:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtype of torch.bfloat16 currently.")
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = _C.is_autocast_cache_enabled()
        if self.device == "cpu":
            self.prev = _C.is_autocast_cpu_enabled()
            self.prev_fastdtype = _C.get_autocast_cpu_dtype()
            _C.set_autocast_cpu_enabled(self._enabled)
            _C.set_autocast_cpu_dtype(self.fast_dtype)
        else:
            self.prev = _C.is_autocast_enabled()
            self.prev_fastdtype = _C.get_autocast_gpu_dtype()
            _C.set_autocast_gpu_dtype(self.fast_dtype)
            _C.set_autocast_enabled(self._enabled)
        _C.autocast_increment_nesting()
        _C.set_autocast_cache_enabled(self._cache_enabled)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C.autocast_decrement_nesting() == 0:  # drop the cache when leaving the outermost region
            _C.clear_autocast_cache()
        if self.device == "cpu":
            _C.set_autocast_cpu_enabled(self.prev)
            _C.set_autocast_cpu_dtype(self.prev_fastdtype)
        else:
            _C.set_autocast_enabled(self.prev)
            _C.set_autocast_gpu_dtype(self.prev_fastdtype)
        _C.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        return autocast_decorator(self, func)
