"""torch.cuda.amp: GradScaler (engine/optim/grad_scaler.h; in ember it scales CPU losses too) and
autocast for CUDA (float16 by default)."""
from .._C import GradScaler  # noqa: F401
from .. import amp


def autocast(enabled=True, dtype=None, cache_enabled=True):
    return amp.autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
