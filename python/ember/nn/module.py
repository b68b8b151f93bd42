"""torch.nn.Module's Python side (torch/nn/modules/module.py), added to ember's C++ Module: every
C++ module (Linear, Sequential, ...) and every Python subclass gets it."""
from .. import _C
from ._parameter import Parameter, as_parameter

Module = _C.Module
_cpp_parameters = Module.parameters
_cpp_named_parameters = Module.named_parameters
_cpp_register_buffer = Module.register_buffer
Linear = _C.Linear
ReLU = _C.ReLU
Dropout = _C.Dropout
LayerNorm = _C.LayerNorm
Sequential = _C.Sequential
ModuleList = _C.ModuleList


def _call(self, *args, **kwargs):
    return self.forward(*args, **kwargs)


def _setattr(self, name, value):
    """Assigning a Parameter or a Module registers it with the C++ module, as torch's __setattr__ does."""
    if isinstance(value, Parameter):
        if name in self.__dict__:
            raise KeyError(f"attribute '{name}' already exists (ember registers a parameter once; assign to its "
                           f".data to change its values)")
        value = as_parameter(self._register_parameter(name, value))
    elif isinstance(value, Module):
        if name in self.__dict__:
            raise KeyError(f"attribute '{name}' already exists (ember registers a submodule once)")
        self.register_module(name, value)
    object.__setattr__(self, name, value)


def _register_parameter(self, name, param):
    object.__setattr__(self, name, None if param is None else as_parameter(self._register_parameter(name, param)))


def _register_buffer(self, name, tensor):
    """The buffer is registered with the C++ module (to() and buffers() reach it) and is an attribute."""
    object.__setattr__(self, name, _cpp_register_buffer(self, name, tensor))


def _parameters(self, recurse=True):
    return [as_parameter(p) for p in _cpp_parameters(self)]


def _named_parameters(self):
    return [(name, as_parameter(p)) for name, p in _cpp_named_parameters(self)]


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
    yield self
    for child in self.children():
        yield from child.modules()


Module.__call__ = _call
Module.__setattr__ = _setattr
Module.__repr__ = _repr
Module.register_parameter = _register_parameter
Module.register_buffer = _register_buffer
Module.parameters = _parameters
Module.named_parameters = _named_parameters
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
