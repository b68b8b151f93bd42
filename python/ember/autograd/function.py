"""torch.autograd.Function: a user's own op, its forward and backward written in Python, recorded as
one node of the graph. Written as torch/autograd/function.py writes it: each Function class gets a
Backward class (MyFunctionBackward) whose object is both the `ctx` its forward and backward receive
and the node's Python object (`y.grad_fn is ctx`). Function.apply runs in C++
(python/src/custom_function.cpp), over the engine's custom functions
(engine/autograd/custom_function.h): the same path libtorch's torch::autograd::Function<T> takes."""
import functools

from .. import _C
from .grad_mode import no_grad


class FunctionCtx:
    """What forward and backward may do with their ctx."""

    def save_for_backward(self, *tensors):
        """Saves tensors (or None) for backward, which reads them as ctx.saved_tensors: version-checked,
        and through saved-tensor hooks."""
        self.to_save = tensors

    def mark_dirty(self, *args):
        """Marks inputs the forward modified in place (they must be returned)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Marks outputs that get no gradient (they do not require grad)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        """Whether an output that got no gradient is given zeros (True, the default) or None in backward."""
        self.materialize_grads = value


class _HookMixin:
    pass


class BackwardCFunction(_C._FunctionBase, FunctionCtx, _HookMixin):
    """The class of a Function's ctx (and node): apply runs the Function's backward."""

    def apply(self, *args):
        return self._forward_cls.backward(self, *args)


class FunctionMeta(type(_C._FunctionBase)):
    """Gives each Function class its Backward class, named as PyTorch names it."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(_C._FunctionBase, FunctionCtx, _HookMixin, metaclass=FunctionMeta):
    """Base class of a custom autograd function: subclass it, write `forward(ctx, *args)` and
    `backward(ctx, *grad_outputs)` as static methods, and call `MyFunction.apply(*args)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        return _C._FunctionBase._apply(cls, *args)


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class _DelayedError(Function):
    """Passes tensors through; differentiating them raises `message` (once_differentiable's guard)."""

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


def once_differentiable(fn):
    """Decorates a backward that cannot itself be differentiated: a second derivative through it raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        if not any(isinstance(arg, _C.Tensor) and arg.requires_grad for arg in args):
            return outputs
        if not isinstance(outputs, tuple):
            outputs = (outputs,)

        def fake_requires_grad(var):
            if var is not None:
                var = var.detach()
                var.requires_grad = True
            return var
        return _DelayedError.apply("trying to differentiate twice a function that was marked with "
                                   "@once_differentiable", *[fake_requires_grad(v) for v in outputs])
    return wrapper
