"""torch.autograd over ember's engine (engine/autograd/), written as torch/autograd/__init__.py writes
it: backward() and grad() put their arguments into shape and call the engine once
(engine/autograd/grad.h); the modes, custom Functions, saved-tensor hooks, anomaly mode and
gradcheck each have their module, as torch's do."""
from .. import _C
from .._C import saved_tensors_in_graph  # noqa: F401 (every tensor a graph keeps, by node: ember's own)
from . import anomaly_mode, function, grad_mode, graph, profiler  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function, InplaceFunction, once_differentiable  # noqa: F401
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from .variable import Variable  # noqa: F401
from ..profiler import kineto_available  # noqa: F401

SavedTensor = _C._autograd.SavedTensor


def _tensor_or_tensors_to_tuple(tensors, length):
    if tensors is None:
        return (None,) * length
    if isinstance(tensors, _C.Tensor):
        return (tensors,)
    return tuple(tensors)


def _check_grads(grads):
    for grad in grads:
        if grad is not None and not isinstance(grad, _C.Tensor):
            raise TypeError("gradients can be either Tensors or None, but got " + type(grad).__name__)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates into the leaves' .grad (or only into `inputs`' .grad) the gradients of `tensors`."""
    if grad_variables is not None:
        import warnings
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.")
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to backward(). "
                               "Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    tensors = (tensors,) if isinstance(tensors, _C.Tensor) else tuple(tensors)
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs) if inputs is not None else ()
    grads = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors))
    _check_grads(grads)
    _C._backward(tensors, grads, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to `inputs`, returned (no .grad is touched)."""
    if is_grads_batched:
        raise RuntimeError("ember has no vmap: is_grads_batched=True is not supported")
    if not only_inputs:
        import warnings
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.")
    outputs = (outputs,) if isinstance(outputs, _C.Tensor) else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    grads = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs))
    _check_grads(grads)
    return _C._grad(outputs, inputs, grads, retain_graph, create_graph, allow_unused)
