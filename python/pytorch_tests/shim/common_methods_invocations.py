"""torch.testing._internal.common_methods_invocations: the one helper test_autograd.py imports."""
import torch


def mask_not_all_zeros(shape):
    """A random bool mask of `shape` with at least one True."""
    assert len(shape) > 0
    while True:
        result = torch.randn(shape).gt(0)
        if result.sum() > 0:
            return result
