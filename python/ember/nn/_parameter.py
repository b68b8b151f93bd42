"""nn.Parameter: a tensor that a module registers as a parameter when it is assigned to one of the
module's attributes. As torch's (torch/nn/parameter.py), it is made by Tensor._make_subclass: a new
leaf over the data's storage whose Python object is a Parameter. A parameter a C++ module made
(nn::Linear's weight) becomes one the first time Python sees it, and stays one: a tensor has one
Python object (python/src/python_object.cpp)."""
from .. import _C


class Parameter(_C.Tensor):
    __slots__ = ()  # Tensor's own layout (its attributes live in Tensor's dict), so a tensor can become one

    def __new__(cls, data=None, requires_grad=True):
        return _C.Tensor._make_subclass(cls, _C.empty(0) if data is None else data, requires_grad)

    def __init__(self, data=None, requires_grad=True):  # made whole by __new__, as torch's
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def as_parameter(tensor):
    """The same tensor (same object, nothing copied) seen as a Parameter."""
    if tensor is not None and type(tensor) is _C.Tensor:
        tensor.__class__ = Parameter
    return tensor
