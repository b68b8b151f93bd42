"""What torch writes in Python for its Tensor (torch/_tensor.py, torch/Size), written the same way
over ember's C++ Tensor: the shape as a torch.Size, len(), iteration, and NumPy's __array__."""
from . import _C


class Size(tuple):
    """A tensor's sizes: a tuple printed as PyTorch prints it, torch.Size([2, 3])."""

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    __str__ = __repr__

    def numel(self):
        count = 1
        for size in self:
            count *= size
        return count


def _size(self, dim=None):
    sizes = self._sizes
    if dim is None:
        return Size(sizes)
    return sizes[dim]


def _len(self):
    if self.dim() == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._sizes[0]


def _iter(self):
    if self.dim() == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter([self[i] for i in range(self._sizes[0])])


def _array(self, dtype=None):
    array = self.numpy()
    return array if dtype is None else array.astype(dtype, copy=False)


def _format(self, format_spec):
    if self.dim() == 0:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


_C.Tensor.shape = property(lambda self: Size(self._sizes))
_C.Tensor.size = _size
_C.Tensor.__len__ = _len
_C.Tensor.__iter__ = _iter
_C.Tensor.__array__ = _array
_C.Tensor.__format__ = _format
_C.Tensor.__str__ = _C.Tensor.__repr__
_C.Tensor.__module__ = "ember"


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates this tensor's gradient into the leaves' .grad (torch.autograd.backward)."""
    from . import autograd
    autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _init_subclass(cls, **kwargs):
    """A Python subclass's objects are preserved like Tensor's own (python/src/python_object.cpp)."""
    _C._preserve_objects_of(cls)


_C.Tensor.__init_subclass__ = classmethod(_init_subclass)
_C.Tensor.backward = _backward


def _storage(self):
    from .storage import TypedStorage
    return TypedStorage(self._storage_as_flat())


_C.Tensor.storage = _storage
_C.Tensor.untyped_storage = lambda self: _storage(self).untyped()


_set_tensor = _C.Tensor.set_


def _set_(self, source=None, storage_offset=None, size=None, stride=None):
    """torch's set_: this tensor, in place, over the source tensor's storage (with its layout), over a
    storage (all of it, or from storage_offset with size and stride), or over none (set_())."""
    from .storage import TypedStorage, UntypedStorage
    if isinstance(source, (TypedStorage, UntypedStorage)):
        return self._set_storage(source._flat_tensor(), isinstance(source, TypedStorage), storage_offset, size, stride)
    return _set_tensor(self) if source is None else _set_tensor(self, source)


_C.Tensor.set_ = _set_
