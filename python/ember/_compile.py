"""ember.compile: torch.compile over ember's compiler (engine/compile/compiled_function.h explains
the path: a capture through the dispatcher, fused kernels generated as C++ and built with the
system's compiler, autograd through one CompiledFunctionBackward node per kernel).

    model = torch.compile(model)          # an nn.Module: an OptimizedModule, as torch's
    f = torch.compile(f)                  # a function of tensors
    @torch.compile                        # the decorator form
    torch._dynamo.explain(f)(x)           # graphs, breaks, ops

The first call of each guard set runs the function eagerly while it is captured; later calls run
the compiled plan without entering Python. Only tensor positional arguments are captured: a call
with anything else runs the function eagerly (torch.compile would guard on those values too).
"""
import inspect
import weakref

from . import _C
from ._C import Tensor

__all__ = ["compile"]


class _Compiled:
    """A function of tensors and its compiled form: what torch.compile returns for a function, and
    what an OptimizedModule calls."""

    def __init__(self, function, module=None, name=None):
        self._function = function
        self._structure = None  # what the function returned: None for a tensor, else tuple or list
        try:
            names = [p.name for p in inspect.signature(function).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            names = []
        constants = None
        training = None
        if module is not None:
            def constants():
                return list(module.named_parameters()) + list(module.named_buffers())

            def training():
                return module.training
        # The C++ object holds only a weak reference back: a strong one would be a cycle through C++
        # that Python's collector cannot see, and the graph's tensors would never be freed.
        this = weakref.ref(self)

        def captured_call(*tensors):
            return this()._captured_call(*tensors)
        self._compiled = _C._CompiledFunction(captured_call, names, constants, training,
                                              name or getattr(function, "__name__", "compiled"))

    def _captured_call(self, *tensors):
        result = self._function(*tensors)
        if isinstance(result, Tensor):
            self._structure = None
            return [result]
        if isinstance(result, (tuple, list)) and all(isinstance(t, Tensor) for t in result):
            self._structure = type(result)
            return list(result)
        raise TypeError("ember.compile: a compiled function must return a tensor or a tuple or list of tensors, "
                        f"not {type(result).__name__}")

    def __call__(self, *args, **kwargs):
        if kwargs or not all(isinstance(a, Tensor) for a in args):
            return self._function(*args, **kwargs)
        outputs = self._compiled(list(args))
        return outputs[0] if self._structure is None else self._structure(outputs)

    def explain(self):
        return self._compiled.explain()


class OptimizedModule:
    """torch._dynamo.eval_frame.OptimizedModule: the module compiled; `_orig_mod` is the module,
    and every attribute not its own is the module's."""

    def __init__(self, mod):
        self.__dict__["_orig_mod"] = mod
        self.__dict__["_compiled"] = _Compiled(mod.forward, module=mod, name=type(mod).__name__)

    def __call__(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        setattr(self._orig_mod, name, value)

    def __repr__(self):
        return f"OptimizedModule(\n  (_orig_mod): {self._orig_mod!r}\n)"


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable=False):
    """torch.compile's signature; ember has one backend (its own), so backend, mode and options are
    accepted and change nothing, as `dynamic` (shapes are always static, a new shape recompiles)."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    from .nn import Module
    if isinstance(model, Module):
        return OptimizedModule(model)
    compiled = _Compiled(model)

    def compiled_function(*args, **kwargs):
        return compiled(*args, **kwargs)

    compiled_function._ember_compiled = compiled
    compiled_function.__name__ = getattr(model, "__name__", "compiled")
    compiled_function.__doc__ = getattr(model, "__doc__", None)
    return compiled_function
