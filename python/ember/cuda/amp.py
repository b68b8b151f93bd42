"""torch.cuda.amp: GradScaler (engine/optim/grad_scaler.h; in ember it scales CPU losses too) and
torch.cuda.amp.autocast, torch.autocast("cuda") with float16 by default (PyTorch 1.13's
torch/cuda/amp/autocast_mode.py)."""
from .._C import GradScaler  # noqa: F401
from .. import _C, amp


class autocast(amp.autocast):
    def __init__(self, enabled=True, dtype=_C.dtype.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
