"""torch.optim: ember's optimizers (engine/optim/), which update the parameters in place, step for
step PyTorch 1.13's. Each is torch's Python class (its keywords, param_groups, state_dict) over
ember's C++ optimizer of the same name; Optimizer is their base, as torch.optim.Optimizer."""
from .optimizer import Optimizer, required  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
