"""torch.storage: the block of memory a tensor and its views share, as PyTorch 1.13 shows it in
Python. t.storage() is a TypedStorage (elements of t's dtype), t.untyped_storage() the same bytes
untyped (torch 2.x's name; 1.13's t.storage().untyped()). Two views of one tensor have storages with
the same data_ptr(). Each is a new object over the tensor's storage, which it keeps alive."""


class TypedStorage:
    def __init__(self, flat):
        self._flat = flat  # the whole storage as a flat tensor (_C.Tensor._storage_as_flat)

    def _elements(self):
        """The storage's elements as they are now: set_ or resize_ of a tensor on it may have grown it."""
        return self._flat._storage_as_flat()

    def data_ptr(self):
        return self._flat.data_ptr()

    def size(self):
        return self._elements().numel()

    __len__ = size

    def element_size(self):
        return self._flat.element_size()

    def nbytes(self):
        return self.size() * self.element_size()

    @property
    def dtype(self):
        return self._flat.dtype

    @property
    def device(self):
        return self._flat.device

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        return self._elements()[index].item()

    def untyped(self):
        return UntypedStorage(self)

    def _flat_tensor(self):  # what Tensor.set_ hands the C++ door
        return self._flat

    def __repr__(self):
        values = "".join(f" {value}\n" for value in self.tolist())
        return (f"{values}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                f"{self.size()}]")


class UntypedStorage:
    """The storage's bytes: its size() and len() count bytes."""

    def __init__(self, typed):
        self._typed = typed

    def data_ptr(self):
        return self._typed.data_ptr()

    def nbytes(self):
        return self._typed.nbytes()

    size = nbytes
    __len__ = nbytes

    def element_size(self):
        return 1

    def _flat_tensor(self):
        return self._typed._flat

    @property
    def device(self):
        return self._typed.device
