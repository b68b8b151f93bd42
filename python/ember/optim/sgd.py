"""torch.optim.SGD over ember's C++ SGD (engine/optim/sgd.h), with torch 1.13's keywords and
defaults: its param_groups hold lr, momentum, dampening, weight_decay, nesterov, maximize, foreach
and differentiable, in that order."""
from .. import _C
from .optimizer import Optimizer, required


class SGD(Optimizer, _C._SGD):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        _C._SGD.__init__(self, {k: v for k, v in defaults.items() if v is not required})
        Optimizer.__init__(self, params, defaults)
