"""torch.testing._internal.common_dtype: the dtype lists tests parametrize over."""
import torch


def floating_types():
    return (torch.float32, torch.float64)


def floating_types_and(*dtypes):
    return floating_types() + tuple(dtypes)
