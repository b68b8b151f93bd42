"""ember from Python: PyTorch's names over ember's C++ engine.

`import ember as torch` runs PyTorch-shaped code (the chapter's debug.py, a small training loop)
on an engine whose every line can be read: each call below is one call into ember's C++ API
(the `_C` extension, python/src/), and what PyTorch itself writes in Python (torch/_tensor.py,
torch/nn/modules/module.py, torch/autograd/grad_mode.py) is written here in Python the same way.
ember's errors are RuntimeErrors with PyTorch's texts, its warnings UserWarnings.
"""
from . import _C
from ._C import (Tensor, device, dtype, zeros, ones, empty, full, rand, randn, randint, randperm, arange, eye, tensor,
                 zeros_like, ones_like, empty_like, bernoulli, from_numpy, add, sub, mul, div, matmul, mm, bmm, addmm,
                 pow, exp, log, sqrt, neg, abs, sign, relu, sigmoid, tanh, sum, mean, max, min, argmax, softmax,
                 log_softmax, where, cat, stack, allclose, equal, is_nonzero, eq, ne, lt, le, gt, ge, manual_seed,
                 seed, initial_seed, is_grad_enabled, is_inference_mode_enabled, set_num_threads, get_num_threads,
                 set_warn_always, is_warn_always_enabled, is_autocast_enabled, get_autocast_dtype,
                 memory_allocated, max_memory_allocated, memory_reserved, reset_peak_memory_stats)
from ._tensor import Size
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode
from .amp import autocast
from . import autograd, nn, optim, profiler, cuda

float32 = _C.dtype.float32
float64 = _C.dtype.float64
bfloat16 = _C.dtype.bfloat16
float16 = _C.dtype.float16
int64 = _C.dtype.int64
bool = _C.dtype.bool  # noqa: A001 (torch.bool; Python's bool is not used below this line)
float = float32  # noqa: A001
double = float64
half = float16
long = int64


def is_tensor(obj):
    return isinstance(obj, Tensor)
