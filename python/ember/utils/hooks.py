"""torch.utils.hooks: the handle a Python hook registration returns, and what lets an nn.Module's
full backward hook see the gradients of its inputs and outputs (BackwardHook), written as PyTorch
writes them: the module's tensors pass through an identity Function on the way in and out, and
hooks on that Function's nodes catch the gradients flowing back."""
import itertools
import weakref

from ..autograd.function import Function


class RemovableHandle:
    """Removes the hook it was returned for from its dict (a second remove() does nothing)."""

    next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.remove()


class BackwardHookFunction(Function):
    """The identity on a module's tensors, so that they get a node of their own to hook."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """A module's full backward hooks, called with (module, grad_input, grad_output)."""

    def __init__(self, module, user_hooks):
        self.user_hooks = user_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        result = [None] * size
        for index, value in zip(indices, values):
            result[index] = value
        return tuple(result)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[index] for index in indices)

    def _set_user_hook(self, grad_fn):
        def hook(grad_input, _):
            if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
                return None
            result = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, result, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(result):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                       f"{len(out)}, but expected {len(result)}")
                result = out
            self.grad_outputs = None
            return self._unpack_none(self.input_tensors_index, result)
        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        from .. import _C
        indices, tensors = [], []
        for i, arg in enumerate(args):
            if isinstance(arg, _C.Tensor):
                indices.append(i)
                tensors.append(arg)
        if not (any(t.requires_grad for t in tensors) and _C.is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        fn(grad_fns[0])
        arguments = list(args)
        for index, value in zip(indices, new_tensors):
            arguments[index] = value
        return tuple(arguments), indices

    def setup_input_hook(self, args):
        result, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, args):
        def fn(grad_fn):
            def hook(_, grad_output):
                self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
                if self.input_tensors_index is None:  # no input requires grad: call the user hooks now
                    grad_inputs = self._pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        result = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
            grad_fn.register_hook(hook)
        is_tuple = isinstance(args, tuple)
        result, self.output_tensors_index = self._apply_on_tensors(fn, args if is_tuple else (args,))
        self.n_outputs = len(args) if is_tuple else 1
        return result if is_tuple else result[0]
