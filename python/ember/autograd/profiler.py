"""torch.autograd.profiler: PyTorch's older door to the same op profiler as torch.profiler
(ember.profiler, over engine/profiler/profiler.h): profile(use_cuda=...), record_function, and
emit_nvtx, which names every op and range for Nsight Systems while it lasts (engine/profiler's
EmitNvtx; like torch, it needs a build with CUDA)."""
from .. import _C
from .. import profiler as _profiler
from ..profiler import record_function  # noqa: F401


class profile(_profiler.profile):
    """`with profile() as prof:` records the block's ops; prof.key_averages().table() as torch's."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False, profile_memory=False,
                 with_stack=False, with_modules=False, use_kineto=False, use_cpu=True, experimental_config=None):
        activities = ([_profiler.ProfilerActivity.CPU] if use_cpu else []) + (
            [_profiler.ProfilerActivity.CUDA] if use_cuda else [])
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_flops=with_flops)
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self.start()
        return self

    def __exit__(self, *exception):
        if self.enabled:
            self.stop()
        return False


class emit_nvtx:
    """`with emit_nvtx():` every op and record_function range pushes an NVTX range named after it."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes
        self._scope = None

    def __enter__(self):
        if not self.enabled:
            return
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        if not _C._cuda_is_built():
            raise AssertionError("Torch not compiled with CUDA enabled")
        self._scope = _C._profiler._EmitNvtx()
        self._scope.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._scope.__exit__(None, None, None)
        self._scope = None
        return False
