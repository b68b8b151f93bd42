"""torch.optim.Adam and AdamW over ember's C++ ones (engine/optim/adam.h), with torch 1.13's
keywords and defaults, and its param_groups' keys in its order (which differs between the two)."""
from .. import _C
from .optimizer import Optimizer


class Adam(Optimizer, _C._Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        _C._Adam.__init__(self, defaults)
        Optimizer.__init__(self, params, defaults)


class AdamW(Optimizer, _C._AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        _C._AdamW.__init__(self, defaults)
        Optimizer.__init__(self, params, defaults)
