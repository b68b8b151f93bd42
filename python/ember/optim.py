"""torch.optim.SGD: ember's SGD (engine/optim/sgd.h), which updates the parameters in place."""
from ._C import SGD  # noqa: F401
