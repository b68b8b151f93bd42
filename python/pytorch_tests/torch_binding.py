"""Binds the name `torch` for PyTorch's test files: to ember (`import torch` gives ember,
`torch.nn` ember.nn, `torch.autograd.graph` ember.autograd.graph, ...) or to real torch. Either way
torch.testing's test helpers are the project's shim (shim/), so that the shim itself is checked by
running the same tests under real torch.

A test file imports, at its top, names for features ember does not have (forward-mode AD,
torch.autograd.functional, NVTX ranges): without them the file would not load and none of its tests could
run. MISSING gives each such module or name a placeholder that raises, naming the feature, if a
test uses it; selection.py keeps the tests that use them from running."""
import importlib
import importlib.abc
import importlib.util
import os
import sys
import types

SHIM = "shim"

# torch.X modules the shim provides, under either engine.
SHIMMED = {
    "torch.testing": f"{SHIM}.testing",
    "torch.testing._internal": SHIM,
    "torch.testing._internal.common_utils": f"{SHIM}.common_utils",
    "torch.testing._internal.common_cuda": f"{SHIM}.common_cuda",
    "torch.testing._internal.common_device_type": f"{SHIM}.common_device_type",
    "torch.testing._internal.common_dtype": f"{SHIM}.common_dtype",
    "torch.testing._internal.common_methods_invocations": f"{SHIM}.common_methods_invocations",
    "torch.testing._internal.logging_tensor": f"{SHIM}.logging_tensor",
    "torch._six": f"{SHIM}._six",
}

# What ember lacks that the test files import at load time: module -> reason, or (module, name) -> reason.
MISSING = {
    "torch.autograd.forward_ad": "forward-mode AD",
    "torch.autograd.functional": "torch.autograd.functional (jacobian, hessian, vjp, jvp)",
    "torch.autograd.profiler_util": "PyTorch's Python profiler classes (EventList, FunctionEvent)",
    "torch.utils._mode_utils": "__torch_dispatch__ modes",
    ("torch.autograd.profiler", "emit_itt"): "Intel ITT ranges",
    ("torch.autograd", "_calculate_shape"): "torch.autograd's private helpers",
    ("torch", "int8"): "the int8 dtype",
    ("torch", "int16"): "the int16 dtype",
    ("torch", "int32"): "the int32 dtype",
    ("torch", "cdouble"): "complex numbers",
}


class Missing:
    """A placeholder for a feature ember does not have: using it raises, naming the feature."""

    def __init__(self, name, reason):
        self._name, self._reason = name, reason

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(f"{self._name}: ember does not have {self._reason}")

    __call__ = __enter__ = _refuse

    def __str__(self):
        return self._name

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return Missing(f"{self._name}.{attribute}", self._reason)

    def __mro_entries__(self, bases):  # `class X(LoggingTensor)` at a module's top level
        return (type(self._name.rsplit(".", 1)[-1], (), {"__init__": self._refuse}),)


def _missing_module(name, reason):
    module = types.ModuleType(name)
    module.__getattr__ = lambda attribute: Missing(f"{name}.{attribute}", reason)
    return module


def _with_placeholders(name, module):
    """The module, given a placeholder for each name of MISSING it lacks."""
    for key, reason in MISSING.items():
        if isinstance(key, tuple) and key[0] == name and not hasattr(module, key[1]):
            setattr(module, key[1], Missing(f"{name}.{key[1]}", reason))
    return module


class _TorchFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves torch.* imports: the shim, then the placeholders, then ember's module of that name."""

    def __init__(self, engine):
        self.engine = engine

    def find_spec(self, fullname, path, target=None):
        if fullname in SHIMMED:
            return importlib.util.spec_from_loader(fullname, self)
        if self.engine == "ember" and (fullname == "torch" or fullname.startswith("torch.")):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        name = spec.name
        if name in SHIMMED:
            return importlib.import_module(SHIMMED[name])
        if name in MISSING:
            return _missing_module(name, MISSING[name])
        try:
            module = importlib.import_module("ember" + name[len("torch"):])
        except ModuleNotFoundError:
            if not any(isinstance(key, str) and key.startswith(name + ".") for key in MISSING):
                raise
            module = types.ModuleType(name)  # a package ember lacks, holding only placeholders
            module.__path__ = []
        return _with_placeholders(name, module)

    def exec_module(self, module):
        pass


def bind(engine):
    """Makes `import torch` give `engine` ("ember" or "real") from now on, in this process."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if engine == "real":
        import torch  # real torch imports its own torch.testing first; the shim then replaces it
        for name in SHIMMED:
            sys.modules.pop(name, None)
        sys.meta_path.insert(0, _TorchFinder(engine))
        for name in sorted(SHIMMED):
            parent, _, child = name.rpartition(".")
            setattr(sys.modules[parent] if parent in sys.modules else importlib.import_module(parent), child,
                    importlib.import_module(name))
    else:
        sys.meta_path.insert(0, _TorchFinder(engine))
        import torch  # noqa: F401 (loads ember now, so that a broken build fails here)
        # ember's modules loaded so far are torch's of the same name: `torch.autograd.gradcheck` is
        # then found as it is, not imported again (which would rebind the package attribute
        # torch.autograd.gradcheck, the function, to the module, as importing a submodule does).
        for name, module in list(sys.modules.items()):
            if name == "ember" or name.startswith("ember."):
                torch_name = "torch" + name[len("ember"):]
                sys.modules.setdefault(torch_name, _with_placeholders(torch_name, module))
