"""torch.testing._internal.common_utils, as far as the selected tests use it: TestCase with PyTorch's
assertEqual (tensors, numbers, sequences and mappings compared with PyTorch's default tolerances
per dtype), the skip decorators, parametrize, and gradcheck/gradgradcheck with the defaults the
tests expect. Written over the public torch API, so it runs under ember and under real torch."""
import contextlib
import functools
import gc
import math
import os
import random
import sys
import unittest
import warnings
from collections.abc import Mapping, Sequence

import torch

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"
TEST_WITH_SLOW = os.getenv("PYTORCH_TEST_WITH_SLOW", "0") == "1"
SEED = 1234

# PyTorch's default (rtol, atol) per dtype (torch/testing/_comparison.py).
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _tolerance(dtype):
    return _TOLERANCES.get(_dtype_name(dtype), (0.0, 0.0))


def _flat(values):
    if isinstance(values, list):
        for value in values:
            yield from _flat(value)
    else:
        yield values


def _close(a, b, rtol, atol, equal_nan):
    if isinstance(a, bool) or isinstance(b, bool) or (isinstance(a, int) and isinstance(b, int)):
        return a == b if rtol == 0 and atol == 0 else abs(a - b) <= atol + rtol * abs(b)
    if math.isnan(a) or math.isnan(b):
        return equal_nan and math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def _is_number(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, torch.Tensor)


class _Mismatch(AssertionError):
    pass


def _compare(x, y, rtol, atol, equal_nan, exact_dtype, path):
    where = f" at {path}" if path else ""
    if x is None or y is None:
        if x is not y:
            raise _Mismatch(f"None mismatch{where}: {x!r} is not {y!r}")
        return
    if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
        return _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, where)
    if isinstance(x, str) or isinstance(y, str):
        if x != y:
            raise _Mismatch(f"Strings differ{where}: {x!r} != {y!r}")
        return
    if _is_number(x) and _is_number(y):
        if isinstance(x, float) or isinstance(y, float):
            default_rtol, default_atol = _TOLERANCES["float64"]
        else:
            default_rtol, default_atol = 0.0, 0.0
        if not _close(x, y, default_rtol if rtol is None else rtol, default_atol if atol is None else atol, equal_nan):
            raise _Mismatch(f"Scalars are not close{where}: {x!r} != {y!r}")
        return
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        if set(x.keys()) != set(y.keys()):
            raise _Mismatch(f"Keys differ{where}: {sorted(map(str, x))} != {sorted(map(str, y))}")
        for key in x:
            _compare(x[key], y[key], rtol, atol, equal_nan, exact_dtype, f"{path}[{key!r}]")
        return
    if isinstance(x, Sequence) and isinstance(y, Sequence):
        if len(x) != len(y):
            raise _Mismatch(f"Lengths differ{where}: {len(x)} != {len(y)}")
        for i, (a, b) in enumerate(zip(x, y)):
            _compare(a, b, rtol, atol, equal_nan, exact_dtype, f"{path}[{i}]")
        return
    if x != y:
        raise _Mismatch(f"Objects differ{where}: {x!r} != {y!r}")


def _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, where):
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        tensor, other = (x, y) if isinstance(x, torch.Tensor) else (y, x)
        if isinstance(other, Sequence) and not isinstance(other, str):  # a list of numbers: as a tensor of its dtype
            other = torch.tensor(other, dtype=tensor.dtype)
            x, y = (tensor, other) if isinstance(x, torch.Tensor) else (other, tensor)
        elif _is_number(other):
            if tensor.numel() != 1:
                raise _Mismatch(f"A tensor of {tensor.numel()} elements is not a number{where}")
            dtype_rtol, dtype_atol = _tolerance(tensor.dtype)
            number_rtol, number_atol = _TOLERANCES["float64"] if isinstance(other, float) else (0.0, 0.0)
            rtol = max(dtype_rtol, number_rtol) if rtol is None else rtol
            atol = max(dtype_atol, number_atol) if atol is None else atol
            if not _close(tensor.item(), other, rtol, atol, equal_nan):
                raise _Mismatch(f"Scalars are not close{where}: {tensor.item()!r} != {other!r}")
            return
        else:
            raise _Mismatch(f"A tensor is compared with {type(other).__name__}{where}")
    if tuple(x.shape) != tuple(y.shape):
        raise _Mismatch(f"The values for attribute 'shape' do not match{where}: {tuple(x.shape)} != {tuple(y.shape)}.")
    if exact_dtype and x.dtype != y.dtype:
        raise _Mismatch(f"The values for attribute 'dtype' do not match{where}: {x.dtype} != {y.dtype}.")
    x_rtol, x_atol = _tolerance(x.dtype)
    y_rtol, y_atol = _tolerance(y.dtype)
    rtol = max(x_rtol, y_rtol) if rtol is None else rtol
    atol = max(x_atol, y_atol) if atol is None else atol
    actual = list(_flat(x.detach().cpu().tolist()))
    expected = list(_flat(y.detach().cpu().tolist()))
    mismatched = [i for i, (a, b) in enumerate(zip(actual, expected)) if not _close(a, b, rtol, atol, equal_nan)]
    if mismatched:
        first = mismatched[0]
        raise _Mismatch(f"Tensor-likes are not close{where}! Mismatched elements: {len(mismatched)} / {len(actual)}; "
                        f"first at index {first}: {actual[first]!r} != {expected[first]!r} "
                        f"(rtol {rtol}, atol {atol})")


def set_rng_seed(seed):
    torch.manual_seed(seed)
    random.seed(seed)


class TestCase(unittest.TestCase):
    precision = 0.0
    rel_tol = 0.0

    def setUp(self):
        set_rng_seed(SEED)

    def assertEqual(self, x, y, msg=None, *, atol=None, rtol=None, equal_nan=True, exact_dtype=True,
                    exact_device=False, exact_layout=False, exact_stride=False, exact_is_coalesced=False):
        if atol is None and self.precision:
            atol = self.precision
        if rtol is None and self.rel_tol:
            rtol = self.rel_tol
        try:
            _compare(x, y, rtol, atol, equal_nan, exact_dtype, "")
        except _Mismatch as mismatch:
            raise self.failureException(f"{mismatch} : {msg}" if msg else str(mismatch)) from None

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):
        with self.assertRaises(AssertionError, msg=msg):
            self.assertEqual(x, y, msg, atol=atol, rtol=rtol, **kwargs)

    def assertEqualIgnoreType(self, *args, **kwargs):
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def assertNotWarn(self, callable, msg=""):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            callable()
            self.assertTrue(len(caught) == 0, msg)

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category, regex=""):
        with set_warn_always_context(True), self.assertWarnsRegex(category, regex):
            yield


def run_tests(argv=None):
    unittest.main(argv=argv)


def _skip_decorator(condition, reason):
    def decorator(fn):
        return unittest.skip(reason)(fn) if condition else fn
    return decorator


def skipIfNoLapack(fn):
    has_lapack = getattr(getattr(torch, "_C", None), "has_lapack", False)
    return _skip_decorator(not has_lapack, "PyTorch compiled without Lapack")(fn)


def skipIfMps(fn):  # neither engine runs on Apple's MPS here
    return fn


def slowTest(fn):
    return _skip_decorator(not TEST_WITH_SLOW, "test is slow; run with PYTORCH_TEST_WITH_SLOW to enable test")(fn)


@contextlib.contextmanager
def disable_gc():
    if gc.isenabled():
        try:
            gc.disable()
            yield
        finally:
            gc.enable()
    else:
        yield


@contextlib.contextmanager
def set_warn_always_context(new_val):
    old_val = torch.is_warn_always_enabled()
    torch.set_warn_always(new_val)
    try:
        yield
    finally:
        torch.set_warn_always(old_val)


def _with_defaults(kwargs):
    # PyTorch's wrappers turn on batched-gradient checks (vmap) and fast mode. ember has no vmap
    # (README, "What ember is not"), so the batched check is on only where a test asks for it.
    for key, value in (("check_batched_grad", False), ("fast_mode", True)):
        if kwargs.get(key) is None:
            kwargs[key] = value
    return kwargs


def gradcheck(fn, inputs, **kwargs):
    return torch.autograd.gradcheck(fn, inputs, **_with_defaults(kwargs))


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs):
    return torch.autograd.gradgradcheck(fn, inputs, grad_outputs, **_with_defaults(kwargs))


class subtest:
    """One explicitly named entry of a parametrize list."""

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values = arg_values
        self.name = name
        self.decorators = decorators or []


class parametrize:
    """@parametrize("x", [1, 2]): instantiate_parametrized_tests makes test_foo_x_1 and test_foo_x_2."""

    def __init__(self, arg_str, arg_values, name_fn=None):
        self.arg_names = [name.strip() for name in arg_str.split(",")]
        self.arg_values = arg_values
        self.name_fn = name_fn

    def __call__(self, fn):
        fn.parametrize = self
        return fn

    def variants(self):
        for values in self.arg_values:
            explicit = values.name if isinstance(values, subtest) else None
            values = values.arg_values if isinstance(values, subtest) else values
            values = values if len(self.arg_names) > 1 else (values,)
            if explicit:
                name = explicit
            elif self.name_fn:
                name = self.name_fn(*values)
            else:
                name = "_".join(f"{n}_{str(v).replace('.', '_')}" for n, v in zip(self.arg_names, values))
            yield name, dict(zip(self.arg_names, values))


def instantiate_parametrized_tests(generic_cls):
    for name, fn in list(vars(generic_cls).items()):
        spec = getattr(fn, "parametrize", None)
        if not name.startswith("test_") or spec is None:
            continue
        delattr(generic_cls, name)
        for suffix, arguments in spec.variants():
            def variant(self, fn=fn, arguments=arguments):
                return fn(self, **arguments)
            functools.update_wrapper(variant, fn)
            variant.generic_name = name
            setattr(generic_cls, f"{name}_{suffix}", variant)
    return generic_cls
