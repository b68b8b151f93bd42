"""torch.cpu.amp.autocast: torch.autocast("cpu") with bfloat16 by default (PyTorch 1.13's
torch/cpu/amp/autocast_mode.py)."""
from .. import _C, amp


class autocast(amp.autocast):
    def __init__(self, enabled=True, dtype=_C.dtype.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
