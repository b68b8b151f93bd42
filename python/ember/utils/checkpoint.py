"""torch.utils.checkpoint: trading compute for memory. A checkpointed function's forward keeps only
its inputs, not the activations a graph would save; backward runs the function again to get them.
Written as PyTorch 1.13 writes it: the reentrant form is a custom Function whose backward reruns the
forward and calls backward inside; the other keeps nothing through saved-tensor hooks, and unpacking
the first saved tensor reruns the forward to refill them all."""
import weakref

from .. import _C
from .. import random
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks
from ..autograd.grad_mode import enable_grad, no_grad


def detach_variable(inputs):
    """The tensors among inputs detached, each requiring grad as it did."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ", type(inputs).__name__)
    out = []
    for inp in inputs:
        if not isinstance(inp, _C.Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, _C.Tensor)):
        import warnings
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _C.get_rng_state()
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, _C.Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, index in enumerate(ctx.tensor_indices):
            inputs[index] = ctx.saved_tensors[i]
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                _C.set_rng_state(ctx.fwd_cpu_state)
            detached_inputs = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached_inputs)
        if isinstance(outputs, _C.Tensor):
            outputs = (outputs,)
        outputs_with_grad, args_with_grad = [], []
        for i, output in enumerate(outputs):
            if isinstance(output, _C.Tensor) and output.requires_grad:
                outputs_with_grad.append(output)
                args_with_grad.append(args[i])
        if len(outputs_with_grad) == 0:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward(outputs_with_grad, args_with_grad)
        grads = tuple(inp.grad if isinstance(inp, _C.Tensor) else None for inp in detached_inputs)
        return (None, None) + grads


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    """function(*args), with its activations recomputed in backward instead of kept."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, *args, **kwargs)


class _Holder:
    pass


def _checkpoint_without_reentrant(function, preserve_rng_state=True, *args, **kwargs):
    if preserve_rng_state:
        fwd_cpu_state = _C.get_rng_state()
    storage = weakref.WeakKeyDictionary()  # holder -> the tensor recomputed for it
    weak_holders = []

    def pack(x):
        holder = _Holder()
        weak_holders.append(weakref.ref(holder))
        return holder

    def unpack(holder):
        unpack_counter = 0
        if len(storage) == 0:  # the first saved tensor backward reads: rerun the forward, keep them all
            def inner_pack(inner):
                nonlocal unpack_counter
                unpack_counter += 1
                if weak_holders[unpack_counter - 1]() is not None:
                    storage[weak_holders[unpack_counter - 1]()] = inner.detach()

            def inner_unpack(packed):
                raise RuntimeError("You are calling backwards on a tensor that is never exposed. Please open an issue.")

            with random.fork_rng(enabled=preserve_rng_state):
                if preserve_rng_state:
                    _C.set_rng_state(fwd_cpu_state)
                with enable_grad(), saved_tensors_hooks(inner_pack, inner_unpack):
                    function(*args, **kwargs)
        if holder not in storage:
            raise RuntimeError("Attempt to retrieve a tensor saved by autograd multiple times without checkpoint "
                               "recomputation being triggered in between, this is not currently supported. Please "
                               "open an issue with details on your use case so that we can prioritize adding this.")
        return storage[holder]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)
