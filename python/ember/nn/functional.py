"""torch.nn.functional: ember's functions of engine/api/ops.h (nn_functional.cpp, losses.cpp). The
losses take torch's keyword arguments, legacy ones included (size_average, reduce), and pass the
reduction on as torch's enum, as torch/nn/functional.py does."""
from .._C import _functional
from .._C._functional import (relu, sigmoid, tanh, softmax, log_softmax, linear, layer_norm,  # noqa: F401
                              dropout)
from . import _reduction


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    return _functional.mse_loss(input, target, _reduction.get_enum(reduction))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    return _functional.nll_loss_nd(input, target, weight, _reduction.get_enum(reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    if size_average is not None or reduce is not None:
        reduction = _reduction.legacy_get_string(size_average, reduce)
    return _functional.cross_entropy_loss(input, target, weight, _reduction.get_enum(reduction), ignore_index,
                                          label_smoothing)
