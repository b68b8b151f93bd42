"""torch.random: the default generator's seed and state, and fork_rng, which lets a block draw random
numbers and then puts the generator back where it was (what checkpointing's recomputation needs)."""
import contextlib

from . import _C
from ._C import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """The CPU generator's state is restored when the block ends (ember's CUDA generators are left as they are)."""
    if not enabled:
        yield
        return
    state = _C.get_rng_state()
    try:
        yield
    finally:
        _C.set_rng_state(state)
