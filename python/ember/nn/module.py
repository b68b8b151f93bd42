"""torch.nn.Module's Python side (torch/nn/modules/module.py), added to ember's C++ Module: every
C++ module (Linear, Sequential, ...) and every Python subclass gets it."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from .. import _C
from ..autograd import no_grad
from ..utils import hooks
from ._parameter import Parameter, as_parameter

Module = _C.Module
_cpp_parameters = Module.parameters
_cpp_named_parameters = Module.named_parameters
_cpp_named_buffers = Module.named_buffers
_cpp_register_buffer = Module.register_buffer
_cpp_add_module = Module.add_module
Linear = _C.Linear
ReLU = _C.ReLU
Dropout = _C.Dropout
LayerNorm = _C.LayerNorm


def _call(self, *args, **kwargs):
    """Runs forward between the module's hooks, as torch's Module._call_impl: forward pre-hooks may
    replace the inputs, forward hooks the output, and full backward hooks see the gradients."""
    pre_hooks, forward_hooks, backward_hooks = (self.__dict__.get(name) for name in
                                                ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks"))
    if not (pre_hooks or forward_hooks or backward_hooks):
        return self.forward(*args, **kwargs)
    for hook in list((pre_hooks or {}).values()):
        replaced = hook(self, args)
        if replaced is not None:
            args = replaced if isinstance(replaced, tuple) else (replaced,)
    backward_hook = None
    if backward_hooks:
        backward_hook = hooks.BackwardHook(self, list(backward_hooks.values()))
        args = backward_hook.setup_input_hook(args)
    result = self.forward(*args, **kwargs)
    for hook in list((forward_hooks or {}).values()):
        replaced = hook(self, args, result)
        if replaced is not None:
            result = replaced
    if backward_hook:
        result = backward_hook.setup_output_hook(result)
    return result


def _hooks(self, name):
    """The module's ordered dict of hooks of one kind, made on first use."""
    if name not in self.__dict__:
        object.__setattr__(self, name, OrderedDict())
    return self.__dict__[name]


def _register_hook(self, name, hook):
    handle = hooks.RemovableHandle(_hooks(self, name))
    _hooks(self, name)[handle.id] = hook
    return handle


def _register_full_backward_hook(self, hook):
    """hook(module, grad_input, grad_output), called when the gradients of the module's inputs are computed."""
    return _register_hook(self, "_backward_hooks", hook)


def _own_buffers(module):
    return _cpp_named_buffers(module, False)


def _registered(self, names_of):
    """The names this module registers of one kind; none before its C++ part is made (an attribute
    set in a subclass's __init__ before it calls Module.__init__)."""
    return [name for name, _ in names_of(self)] if self._is_made() else []


def _check_made(self, what):
    if not self._is_made():
        raise AttributeError(f"cannot assign {what} before Module.__init__() call")


def _set_plain(self, name, value):
    """Keeps the value as an attribute too, except where the class reads it from C++ (Linear.weight)."""
    if not isinstance(getattr(type(self), name, None), property):
        object.__setattr__(self, name, value)


def _setattr(self, name, value):
    """torch's Module.__setattr__: a Parameter is registered (replacing a parameter of that name, or
    a plain attribute), and only a Parameter or None may replace a parameter; a Module is registered
    (replacing a child of that name), and only a Module or None may replace a child; a registered
    buffer takes a tensor or None. Anything else is a plain attribute."""
    if isinstance(value, Parameter):
        _check_made(self, "parameters")
        self.__dict__.pop(name, None)
        self.register_parameter(name, value)
    elif name in _registered(self, Module._registered_parameters):
        if value is not None:
            raise TypeError(f"cannot assign '{_C.typename(value)}' as parameter '{name}' "
                            "(torch.nn.Parameter or None expected)")
        self.register_parameter(name, value)
    elif isinstance(value, Module):
        _check_made(self, "module")
        self.__dict__.pop(name, None)
        self.add_module(name, value)
        _set_plain(self, name, value)
    elif name in _registered(self, Module.named_children):
        if value is not None:
            raise TypeError(f"cannot assign '{_C.typename(value)}' as child module '{name}' "
                            "(torch.nn.Module or None expected)")
        self.unregister_module(name)  # torch keeps the name with None; ember has no None child
        _set_plain(self, name, value)
    elif name in _registered(self, _own_buffers):
        if value is not None and not isinstance(value, _C.Tensor):
            raise TypeError(f"cannot assign '{_C.typename(value)}' as buffer '{name}' "
                            "(torch.Tensor or None expected)")
        _set_plain(self, name, _cpp_register_buffer(self, name, value))
    else:
        object.__setattr__(self, name, value)


def _getattr(self, name):
    """torch's Module.__getattr__, called when Python finds no attribute: a registered parameter,
    buffer or child by its name (a ParameterDict's key, a Sequential's "0")."""
    if not (name.startswith("__") and name.endswith("__")) and self._is_made():
        for names_of, seen_as in ((Module._registered_parameters, as_parameter), (_own_buffers, None),
                                  (Module.named_children, None)):
            registered = dict(names_of(self))
            if name in registered:
                return seen_as(registered[name]) if seen_as else registered[name]
    raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


def _dotted(prefix, name):
    """A name under a prefix, as torch writes module paths: "seq" + "0" is "seq.0"; "" + "0" is "0"."""
    return prefix + "." + name if prefix else name


def _check_new_name(self, kind, name, registered):
    """torch's checks of a name given to register_parameter or register_buffer, with its texts."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_C.typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(self, name) and name not in registered:
        raise KeyError(f"attribute '{name}' already exists")


def _register_parameter(self, name, param):
    """torch's register_parameter: a name it registers already is given the new parameter."""
    _check_made(self, "parameter")
    _check_new_name(self, "parameter", name, _registered(self, Module._registered_parameters))
    if param is not None and not isinstance(param, Parameter):
        raise TypeError(f"cannot assign '{_C.typename(param)}' object to parameter '{name}' "
                        "(torch.nn.Parameter or None required)")
    registered = self._register_parameter(name, param)
    _set_plain(self, name, None if param is None else as_parameter(registered))


def _register_buffer(self, name, tensor):
    """The buffer is registered with the C++ module (to() and buffers() reach it) and is an attribute."""
    _check_made(self, "buffer")
    _check_new_name(self, "buffer", name, _registered(self, _own_buffers))
    if tensor is not None and not isinstance(tensor, _C.Tensor):
        raise TypeError(f"cannot assign '{_C.typename(tensor)}' object to buffer '{name}' "
                        "(torch Tensor or None required)")
    _set_plain(self, name, _cpp_register_buffer(self, name, tensor))


def _add_module(self, name, module):
    """torch's add_module (and register_module): its checks, in its order, then the C++ registration."""
    if not isinstance(module, Module) and module is not None:
        raise TypeError(f"{_C.typename(module)} is not a Module subclass")
    if not isinstance(name, str):
        raise TypeError(f"module name should be a string. Got {_C.typename(name)}")
    if hasattr(self, name) and name not in [n for n, _ in self.named_children()]:
        raise KeyError(f"attribute '{name}' already exists")
    if "." in name:
        raise KeyError(f'module name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError('module name can\'t be empty string ""')
    _cpp_add_module(self, name, module)


def _named_modules(self, memo=None, prefix="", remove_duplicate=True):
    """(name, module) for this module and every one below it, each once, as torch's."""
    memo = set() if memo is None else memo
    if self in memo:
        return
    if remove_duplicate:
        memo.add(self)
    yield prefix, self
    for name, child in self.named_children():
        yield from child.named_modules(memo, _dotted(prefix, name), remove_duplicate)


def _apply_to_all(self, fn):
    """fn(module) for every child, depth first, then for this module; returns it (torch's apply)."""
    for child in self.children():
        child.apply(fn)
    fn(self)
    return self


def _get_submodule(self, target):
    """The module at a dotted path ("seq.1"; "" is this one), with torch's texts for a wrong step."""
    module = self
    for item in target.split(".") if target else []:
        children = dict(module.named_children())
        if item not in children:
            if hasattr(module, item):
                raise AttributeError("`" + item + "` is not an nn.Module")
            raise AttributeError(type(module).__name__ + " has no attribute `" + item + "`")
        module = children[item]
    return module


def _get_registered(self, target, named, what):
    """get_parameter's and get_buffer's walk: the module of the path's head, then its own tensor."""
    module_path, _, name = target.rpartition(".")
    module = self.get_submodule(module_path)
    own = dict(named(module, recurse=False))
    if name in own:
        return own[name]
    if not hasattr(module, name):
        raise AttributeError(type(module).__name__ + " has no attribute `" + name + "`")
    raise AttributeError("`" + name + "` is not " + what)


def _to_dtype(dtype):
    """Module.float() and its kind: floating-point parameters and buffers converted, in place."""
    return lambda self: self.to(dtype)


def _requires_grad_(self, requires_grad=True):
    for parameter in self.parameters():
        parameter.requires_grad_(requires_grad)
    return self


def _parameters(self, recurse=True):
    return [as_parameter(p) for p in _cpp_parameters(self, recurse)]


def _named_parameters(self, prefix="", recurse=True):
    return [(_dotted(prefix, name), as_parameter(p)) for name, p in _cpp_named_parameters(self, recurse)]


def _named_buffers(self, prefix="", recurse=True):
    return [(_dotted(prefix, name), b) for name, b in _cpp_named_buffers(self, recurse)]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys the module has and the dict lacks, and the reverse."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """torch's Module.state_dict: each module's parameters, then its buffers, then its children's,
    under dotted names; detached unless keep_vars."""
    if destination is None:
        destination = OrderedDict()
    for name, tensor in _cpp_named_parameters(self, False) + _cpp_named_buffers(self, False):
        destination[prefix + name] = tensor if keep_vars else tensor.detach()
    for name, child in self.named_children():
        child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
    return destination


def _load_state_dict(self, state_dict, strict=True):
    """torch's Module.load_state_dict: copies each tensor into the parameter or buffer of its name,
    with torch's texts for a shape that differs and, when strict, for missing and unexpected keys."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    own = OrderedDict(_cpp_named_parameters(self) + _cpp_named_buffers(self))
    missing_keys = [key for key in own if key not in state_dict]
    unexpected_keys = [key for key in state_dict if key not in own]
    error_msgs = []
    for key, target in own.items():
        if key not in state_dict:
            continue
        source = state_dict[key]
        if not isinstance(source, _C.Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(source)}")
        elif tuple(source.shape) != tuple(target.shape):
            error_msgs.append(f"size mismatch for {key}: copying a param with shape {source.shape} from checkpoint, "
                              f"the shape in current model is {target.shape}.")
        else:
            with no_grad():
                target.copy_(source)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                ", ".join(f'"{key}"' for key in unexpected_keys)))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                ", ".join(f'"{key}"' for key in missing_keys)))
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
            type(self).__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _repr(self):
    extra_lines = self.extra_repr().split("\n") if self.extra_repr() else []
    child_lines = [f"({name}): " + _add_indent(repr(child), 2) for name, child in self.named_children()]
    lines = extra_lines + child_lines
    text = type(self).__name__ + "("
    if lines:
        if len(extra_lines) == 1 and not child_lines:
            text += extra_lines[0]
        else:
            text += "\n  " + "\n  ".join(lines) + "\n"
    return text + ")"


def _modules(self):
    for _, module in self.named_modules():
        yield module


Module.__call__ = _call
Module.register_forward_pre_hook = lambda self, hook: _register_hook(self, "_forward_pre_hooks", hook)
Module.register_forward_hook = lambda self, hook: _register_hook(self, "_forward_hooks", hook)
Module.register_full_backward_hook = _register_full_backward_hook
Module.__setattr__ = _setattr
Module.__getattr__ = _getattr
Module.__repr__ = _repr
Module.register_parameter = _register_parameter
Module.register_buffer = _register_buffer
Module.add_module = _add_module
Module.register_module = _add_module
Module.named_modules = _named_modules
Module.apply = _apply_to_all
Module.requires_grad_ = _requires_grad_
Module.get_submodule = _get_submodule
Module.get_parameter = lambda self, target: _get_registered(self, target, _named_parameters, "an nn.Parameter")
Module.get_buffer = lambda self, target: _get_registered(self, target, _named_buffers, "a buffer")
Module.float = _to_dtype(_C.dtype.float32)
Module.double = _to_dtype(_C.dtype.float64)
Module.half = _to_dtype(_C.dtype.float16)
Module.bfloat16 = _to_dtype(_C.dtype.bfloat16)
Module.cpu = lambda self: self.to(_C.device("cpu"))
Module.cuda = lambda self, device=None: self.to(_C.device("cuda", 0 if device is None else device))
Module.parameters = _parameters
Module.named_parameters = _named_parameters
Module.named_buffers = _named_buffers
Module.state_dict = _state_dict
Module.load_state_dict = _load_state_dict
Module.modules = _modules
Module.extra_repr = lambda self: ""
Module.__module__ = "ember.nn"

Linear.weight = property(lambda self: as_parameter(self._weight))
Linear.bias = property(lambda self: as_parameter(self._bias))
Linear.extra_repr = lambda self: (f"in_features={self.in_features}, out_features={self.out_features}, "
                                  f"bias={self._bias is not None}")
Dropout.extra_repr = lambda self: f"p={self.p}, inplace=False"
LayerNorm.weight = property(lambda self: as_parameter(self._weight))
LayerNorm.bias = property(lambda self: as_parameter(self._bias))
LayerNorm.extra_repr = lambda self: (f"{tuple(self.normalized_shape)}, eps={self.eps}, "
                                     f"elementwise_affine={self._weight is not None}")
