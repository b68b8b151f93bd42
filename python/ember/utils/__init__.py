"""torch.utils, as far as ember has it: hooks (RemovableHandle, a module's backward hooks) and
activation checkpointing; and ember's own dispatch_trace."""
from . import checkpoint, hooks  # noqa: F401
from ._dispatch_trace import dispatch_trace  # noqa: F401
