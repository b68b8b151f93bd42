"""torch.cpu: here only torch.cpu.amp, the CPU's autocast by its PyTorch 1.13 name."""
from . import amp  # noqa: F401
