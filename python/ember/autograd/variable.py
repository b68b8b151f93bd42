"""torch.autograd.Variable, PyTorch's old name for a tensor that takes part in autograd: every tensor
is one (isinstance(t, Variable)), and Variable(data, requires_grad) makes a new leaf over data, as
PyTorch's legacy constructor does (data.detach(), then requires_grad set)."""
from .. import _C


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        leaf = (_C.empty(0) if data is None else data).detach()
        return leaf.requires_grad_(requires_grad)
