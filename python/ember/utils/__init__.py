"""torch.utils, as far as ember has it: hooks (RemovableHandle, a module's backward hooks) and
activation checkpointing."""
from . import checkpoint, hooks  # noqa: F401
