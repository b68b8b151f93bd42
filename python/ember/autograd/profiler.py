"""torch.autograd.profiler: PyTorch's older door to the same op profiler as torch.profiler
(ember.profiler, over engine/profiler/profiler.h): profile(use_cuda=...) and record_function."""
from .. import profiler as _profiler
from ..profiler import record_function  # noqa: F401


class profile(_profiler.profile):
    """`with profile() as prof:` records the block's ops; prof.key_averages().table() as torch's."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False, profile_memory=False,
                 with_stack=False, with_modules=False, use_kineto=False, use_cpu=True):
        activities = ([_profiler.ProfilerActivity.CPU] if use_cpu else []) + (
            [_profiler.ProfilerActivity.CUDA] if use_cuda else [])
        super().__init__(activities, record_shapes=record_shapes, profile_memory=profile_memory, with_flops=with_flops)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exception):
        if self.enabled:
            self.stop()
        return False
