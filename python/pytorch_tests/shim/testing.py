"""torch.testing: make_tensor, the one name the selected tests import from it."""
import torch

__path__ = []  # torch.testing is a package: its _internal modules come from the shim (torch_binding.py)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False):
    """A tensor of `shape` with values uniform in [low, high) (default [-9, 9)), as PyTorch's."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    low = -9 if low is None else low
    high = 9 if high is None else high
    if dtype.is_floating_point:
        result = torch.empty(shape, dtype=dtype, device=device).uniform_(low, high)
    else:
        result = torch.randint(int(low), int(high), shape, dtype=dtype, device=device)
    if exclude_zero:
        result[result == 0] = 1
    return result.requires_grad_(requires_grad) if requires_grad else result
