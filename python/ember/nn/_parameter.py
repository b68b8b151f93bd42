"""nn.Parameter: a tensor that a module registers as a parameter when it is assigned to one of the
module's attributes. In ember it is the C++ nn::Parameter (engine/nn/module.h: a leaf that requires
grad), in a Tensor subclass so that assignment can tell it from a plain tensor, as torch's can."""
from .. import _C


def _make(data, requires_grad):
    leaf = data.detach()
    return leaf.requires_grad_(requires_grad)


class Parameter(_C.Tensor):
    def __init__(self, data=None, requires_grad=True):
        super().__init__(_make(_C.empty(0) if data is None else data, requires_grad))

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


def as_parameter(tensor):
    """The same tensor (same C++ TensorImpl, nothing copied) seen as a Parameter."""
    if tensor is None or isinstance(tensor, Parameter):
        return tensor
    parameter = Parameter.__new__(Parameter)
    _C.Tensor.__init__(parameter, tensor)
    return parameter
