"""torch.autograd.graph: saved-tensor hooks (engine/autograd/saved_tensors_hooks.h), which decide
what the graph keeps for backward: pack runs when a node saves a tensor, unpack when backward reads
it. save_on_cpu is the pair that keeps a CPU copy."""
from .. import _C


class saved_tensors_hooks:
    """Within the block, every tensor a node saves goes through pack_hook; unpack_hook brings it back."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._scopes = []

    def __enter__(self):
        scope = _C._saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        scope.__enter__()
        self._scopes.append(scope)

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (pinned memory is ignored: ember has none) and moved back."""

    def __init__(self, pin_memory=False):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Within the block, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message
        self._scopes = []

    def __enter__(self):
        scope = _C._disable_saved_tensors_hooks(self.error_message)
        scope.__enter__()
        self._scopes.append(scope)

    def __exit__(self, *exception):
        return self._scopes.pop().__exit__(*exception)
