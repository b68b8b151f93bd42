"""Grad mode and inference mode as context managers (and decorators), as torch/autograd/grad_mode.py
writes them: no_grad flips ember's thread-local grad mode (engine/core/grad_mode.h) for a block;
inference_mode holds the C++ InferenceMode guard (engine/core/inference_mode.h) for a block."""
import functools

from .. import _C


class _Decorator:
    """Lets a context manager also decorate a function: @no_grad() runs it inside the block."""

    def __call__(self, function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            with self.__class__(*self._arguments):
                return function(*args, **kwargs)
        return run


class _GradModeBlock(_Decorator):
    """A block run with grad mode set to the class's `enabled`, the previous mode restored after."""
    enabled = None

    def __init__(self):
        self._arguments = ()

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self.enabled)

    def __exit__(self, *exception):
        _C._set_grad_enabled(self._previous)
        return False


class no_grad(_GradModeBlock):
    enabled = False


class enable_grad(_GradModeBlock):
    enabled = True


class set_grad_enabled(_Decorator):
    """Sets grad mode at once (torch.set_grad_enabled(False)) or for a `with` block."""

    def __init__(self, mode):
        self._arguments = (mode,)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exception):
        _C._set_grad_enabled(self._previous)
        return False


class inference_mode(_Decorator):
    def __init__(self, mode=True):
        self._arguments = (mode,)
        self._scopes = []

    def __enter__(self):
        scope = _C._InferenceMode(self._arguments[0])
        scope.__enter__()
        self._scopes.append(scope)

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)
