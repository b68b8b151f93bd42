"""torch.autocast: ember's autocast (engine/autocast/autocast.h) for a `with` block, the C++
AutocastGuard held from __enter__ to __exit__. bfloat16 by default on the CPU, float16 on CUDA."""
import functools

from . import _C


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self._arguments = (device_type, dtype, enabled, True if cache_enabled is None else cache_enabled)
        self._scopes = []

    def __enter__(self):
        scope = _C._Autocast(*self._arguments)
        scope.__enter__()
        self._scopes.append(scope)
        return self

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)

    def __call__(self, function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            with autocast(*self._arguments):
                return function(*args, **kwargs)
        return run
