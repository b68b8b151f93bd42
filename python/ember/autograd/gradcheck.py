"""torch.autograd.gradcheck: does a function's backward match finite differences? For Python
functions, over ember's C++ gradcheck (engine/debug/gradcheck.h): slow mode compares whole
Jacobians, fast mode v^T J u; both check reentrancy and undefined output gradients. What ember
lacks (vmap, forward-mode AD, sparse tensors) it refuses by name rather than skipping silently."""
import warnings

from .. import _C

GradcheckError = _C.GradcheckError


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _refuse_missing(check_batched_grad, check_forward_ad, check_sparse_nnz):
    if check_batched_grad:
        raise NotImplementedError("ember has no vmap: gradcheck's check_batched_grad=True is not supported")
    if check_forward_ad:
        raise NotImplementedError("ember has no forward-mode AD: gradcheck's check_forward_ad=True is not supported")
    if check_sparse_nnz:
        raise NotImplementedError("ember has no sparse tensors: gradcheck's check_sparse_nnz=True is not supported")


def _over_tensors(func, inputs):
    """func(*inputs) as a function of the tensors among the inputs, as the C++ gradcheck calls it."""
    positions = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor)]

    def tensor_function(tensors):
        arguments = list(inputs)
        for position, tensor in zip(positions, tensors):
            arguments[position] = tensor
        return _as_tuple(func(*arguments))
    return tensor_function, [inputs[i] for i in positions]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_sparse_nnz=False,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """True when func's analytical gradients match numerical ones; else raises GradcheckError."""
    _refuse_missing(check_batched_grad or check_batched_forward_grad, check_forward_ad, check_sparse_nnz)
    tensor_function, tensors = _over_tensors(func, _as_tuple(inputs))
    return _C._gradcheck(tensor_function, tensors, eps, atol, rtol, raise_exception, nondet_tol,
                         check_undefined_grad, fast_mode)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False):
    """gradcheck of func's gradient: its second derivatives."""
    _refuse_missing(check_batched_grad, check_fwd_over_rev, False)
    tensor_function, tensors = _over_tensors(func, _as_tuple(inputs))
    grad_outputs = [] if grad_outputs is None else list(_as_tuple(grad_outputs))
    return _C._gradgradcheck(tensor_function, tensors, grad_outputs, eps, atol, rtol, raise_exception, nondet_tol,
                             check_undefined_grad, fast_mode)


def _warn_private(name):
    warnings.warn(f"{name} was part of PyTorch's private API and not meant to be exposed. We are deprecating it and "
                  "it will be removed in a future version of PyTorch. If you have a specific use for this or feature "
                  "request for this to be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new")


def _check_grad_out(name, grad_out):
    if grad_out != 1.0:
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0.")


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """The Jacobian of fn(inputs)'s first output with respect to each target tensor (deprecated)."""
    _warn_private("get_numerical_jacobian")
    _check_grad_out("get_numerical_jacobian", grad_out)
    targets = [t for t in _as_tuple(inputs if target is None else target)
               if isinstance(t, _C.Tensor) and t.requires_grad]
    jacobians = _C._numerical_jacobians(lambda _: _as_tuple(fn(inputs))[:1], targets, eps)
    return tuple(jacobians[0])


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """(Jacobians of output, reentrant, correct_grad_sizes, correct_grad_types) by backward (deprecated)."""
    _warn_private("get_analytical_jacobian")
    _check_grad_out("get_analytical_jacobian", grad_out)
    jacobians, reentrant = _C._analytical_jacobians(list(_as_tuple(inputs)), output, nondet_tol)
    return tuple(jacobians), reentrant, True, True
