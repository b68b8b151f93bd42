"""torch.optim: ember's optimizers (engine/optim/), which update the parameters in place, step for
step PyTorch 1.13's; Optimizer is their base, as torch.optim.Optimizer."""
from ._C import SGD, Adam, AdamW, Optimizer  # noqa: F401
