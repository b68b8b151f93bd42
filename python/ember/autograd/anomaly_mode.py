"""Anomaly mode (torch/autograd/anomaly_mode.py): the C++ switch of engine/autograd/anomaly_mode.h
for a `with` block (detect_anomaly), or at once (set_detect_anomaly). While it is on, each node
keeps the Python traceback of the call that made it, and a NaN in a gradient raises."""
from .. import _C
from .grad_mode import _Decorator


class detect_anomaly(_Decorator):
    """Anomaly detection for a block: tracebacks of the forward calls, and NaN checks (check_nan)."""

    def __init__(self, check_nan=True):
        self._arguments = (check_nan,)
        self._scopes = []

    def __enter__(self):
        scope = _C._DetectAnomaly(*self._arguments)
        scope.__enter__()
        self._scopes.append(scope)

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)


class set_detect_anomaly:
    """Turns anomaly detection on or off at once, and back at the end of a `with` block."""

    def __init__(self, mode, check_nan=True):
        self.previous = (_C.is_anomaly_enabled(), _C.is_anomaly_check_nan_enabled())
        _C._set_detect_anomaly(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exception):
        _C._set_detect_anomaly(*self.previous)
        return False
