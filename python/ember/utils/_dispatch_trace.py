"""ember.utils.dispatch_trace: every layer of the engine saying what it decided for each op call,
as it decides it (engine/core/dispatch_trace.h explains the lines). ember's own; PyTorch has no
such trace.

    with ember.utils.dispatch_trace() as trace:
        big(xb).sum().backward()
    # the lines are written to sys.stderr when the block ends (file=None keeps them quiet), and
    # trace.text holds them.
"""
import sys

from .. import _C

_STDERR = object()  # sys.stderr as it is when the block ends (pytest swaps it)


class dispatch_trace:
    def __init__(self, file=_STDERR):
        self.file = file
        self.text = ""
        self._trace = _C._DispatchTrace()

    def __enter__(self):
        self._trace.start()
        return self

    def __exit__(self, *exc_info):
        self._trace.stop()
        self.text = self._trace.text()
        file = sys.stderr if self.file is _STDERR else self.file
        if file is not None:
            file.write(self.text)
        return False
