"""torch.testing._internal.common_device_type, as far as the selected tests use it: a generic test
class becomes one class per device type (TestFooCPU, and TestFooCUDA where a GPU is), each test
method one test per device and dtype (test_bar_cpu_float32), with PyTorch's decorators for which
devices and dtypes a test runs on."""
import functools
import unittest

import torch


def _dtype_suffix(dtype):
    return str(dtype).split(".")[-1]


def _device_types():
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _device_count(device_type):
    return 1 if device_type == "cpu" else torch.cuda.device_count()


def _instantiate(generic_cls, device_type):
    class_name = f"{generic_cls.__name__}{device_type.upper()}"
    device = device_type if device_type == "cpu" else "cuda:0"
    namespace = {"device_type": device_type, "generic_class_name": generic_cls.__name__,
                 "__module__": generic_cls.__module__}
    for name, fn in list(vars(generic_cls).items()):
        if not name.startswith("test_") or not callable(fn):
            continue
        only = getattr(fn, "only_for_device", None)
        if only is not None and only != device_type:
            continue
        dtypes = getattr(fn, "dtypes_by_device", {}).get(device_type) or getattr(fn, "dtypes_by_device", {}).get("all")
        least = getattr(fn, "device_count_at_least", None)
        for dtype in dtypes or [None]:
            def test(self, fn=fn, dtype=dtype, least=least):
                if least is not None:
                    if _device_count(device_type) < least:
                        raise unittest.SkipTest(f"fewer than {least} devices detected")
                    target = [device] if device_type == "cpu" else [f"cuda:{i}" for i in range(_device_count("cuda"))]
                else:
                    target = device
                return fn(self, target) if dtype is None else fn(self, target, dtype)
            functools.update_wrapper(test, fn)
            test.generic_name = name
            suffix = f"_{device_type}" + (f"_{_dtype_suffix(dtype)}" if dtype is not None else "")
            namespace[name + suffix] = test
    return type(class_name, (generic_cls,), namespace)


def instantiate_device_type_tests(generic_test_class, scope, except_for=None, only_for=None):
    del scope[generic_test_class.__name__]  # as PyTorch's: only the per-device classes run
    for device_type in _device_types():
        if except_for and device_type in except_for or only_for and device_type not in only_for:
            continue
        cls = _instantiate(generic_test_class, device_type)
        # Every test_ name the generic class defines is replaced by its per-device variants.
        for name in [n for n in vars(generic_test_class) if n.startswith("test_")]:
            setattr(cls, name, None)
        scope[cls.__name__] = cls


def _mark(attribute, value):
    def decorator(fn):
        setattr(fn, attribute, value)
        return fn
    return decorator


def onlyCPU(fn):
    return _mark("only_for_device", "cpu")(fn)


def onlyCUDA(fn):
    return _mark("only_for_device", "cuda")(fn)


def skipMeta(fn):  # no meta device here
    return fn


def deviceCountAtLeast(count):
    return _mark("device_count_at_least", count)


class dtypes:
    device_type = "all"

    def __init__(self, *args):
        self.args = args

    def __call__(self, fn):
        by_device = getattr(fn, "dtypes_by_device", {})
        by_device[self.device_type] = self.args
        fn.dtypes_by_device = by_device
        return fn


class dtypesIfCUDA(dtypes):
    device_type = "cuda"


class dtypesIfMPS(dtypes):
    device_type = "mps"
