"""torch.nn over ember's C++ modules (engine/nn/). Linear, ReLU, Dropout, LayerNorm and the
containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict) are the C++ classes; nn.Module is the C++ Module, which a Python class can subclass
with its own forward. What torch.nn.Module does in Python is added here, as torch writes it:
assigning a Parameter or a Module to an attribute registers it (so parameters(), to() and train()
reach it; a tensor or a module kept in a plain list is not registered, the chapter's pitfall),
calling a module runs its forward, and repr() prints the tree as PyTorch does."""
from . import functional
from ._parameter import Parameter
from .module import Module, Linear, ReLU, Dropout, LayerNorm
from .containers import Sequential, ModuleList, ModuleDict
from .parameter_containers import ParameterList, ParameterDict
from .loss import MSELoss, NLLLoss, CrossEntropyLoss

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Dropout", "LayerNorm", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "MSELoss",
           "NLLLoss", "CrossEntropyLoss", "functional"]
