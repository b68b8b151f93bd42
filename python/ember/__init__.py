"""ember from Python: PyTorch's names over ember's C++ engine.

`import ember as torch` runs PyTorch-shaped code (the chapter's debug.py, a small training loop)
on an engine whose every line can be read: each call below is one call into ember's C++ API
(the `_C` extension, python/src/), and what PyTorch itself writes in Python (torch/_tensor.py,
torch/nn/modules/module.py, torch/autograd/grad_mode.py) is written here in Python the same way.
ember's errors are RuntimeErrors with PyTorch's texts, its warnings UserWarnings.
"""
try:
    from . import _C
except ImportError as error:  # not built yet, or built for another Python
    import sys
    raise ImportError(
        f"ember's compiled module _C is not beside {__file__}, or was built for another Python than "
        f"{sys.executable} ({sys.version.split()[0]}). Build it with `bash tools/ember.sh demo` (or `test`), "
        "then run /usr/bin/python3 with PYTHONPATH=build-demo/python (or build/python)") from error
from ._C import Tensor, device, dtype  # noqa: F401

# Every function of the C++ module is ember's function of the same name (ember.add is _C.add): the
# functions are bound once, in python/src/, and nothing here lists them again.
globals().update({name: value for name, value in vars(_C).items()
                  if not name.startswith("_") and type(value).__name__ == "builtin_function_or_method"})
_reshape_alias_copy = _C._reshape_alias_copy  # torch's one public underscore op that ember has
from ._tensor import Size
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode
from .amp import autocast
from . import autograd, nn, optim, profiler, cpu, cuda, random, storage, utils, _dynamo
from ._compile import compile  # noqa: A001 (torch.compile; Python's compile is not used here)

contiguous_format = _C.contiguous_format
preserve_format = _C.preserve_format
channels_last = _C.channels_last
float32 = _C.dtype.float32
float64 = _C.dtype.float64
bfloat16 = _C.dtype.bfloat16
float16 = _C.dtype.float16
int64 = _C.dtype.int64
int32 = _C.dtype.int32
int16 = _C.dtype.int16
int8 = _C.dtype.int8
uint8 = _C.dtype.uint8
bool = _C.dtype.bool  # noqa: A001 (torch.bool; Python's bool is not used below this line)
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16


def is_tensor(obj):
    return isinstance(obj, Tensor)
