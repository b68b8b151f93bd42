"""torch.nn's containers from Python (torch/nn/modules/container.py), over ember's C++ ones
(python/src/nn_containers.cpp): Sequential's and ModuleList's indexing (negative, slices),
insert, pop and `del`, which renumber what follows as PyTorch does, and ModuleDict's dict methods,
each with PyTorch's exception types and texts. ParameterList and ParameterDict are in
parameter_containers.py."""
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .. import _C

Module = _C.Module
Sequential = _C.Sequential
ModuleList = _C.ModuleList
ModuleDict = _C.ModuleDict


def _absolute_index(self, idx):
    """torch's _get_abs_string_index, as an int: a negative index counts from the end."""
    idx = operator.index(idx)
    if not (-len(self) <= idx < len(self)):
        raise IndexError('index {} is out of range'.format(idx))
    return idx + len(self) if idx < 0 else idx


def _sequential_getitem(self, idx):
    """s[1] is the module; s[1:] a new Sequential of the same modules under their own names, as torch's."""
    if not isinstance(idx, slice):
        return self._at(_absolute_index(self, idx))
    result = Sequential()
    for name, child in list(self.named_children())[idx]:
        result.add_module(name, child)
    return result


def _module_list_getitem(self, idx):
    """l[1] is the module; l[1:] a new ModuleList of those modules, numbered anew."""
    if isinstance(idx, slice):
        return ModuleList([child for _, child in self.named_children()][idx])
    return self._at(_absolute_index(self, idx))


def _setitem(self, idx, module):
    """s[i] = module replaces the module at i, keeping its name."""
    name = self.named_children()[_absolute_index(self, idx)][0]
    setattr(self, name, module)


def _delitem(self, idx):
    """del s[i] or del s[a:b]: the modules go, and those that stay are numbered 0, 1, ... again
    (named ones too: torch rebuilds its _modules with str(i) keys)."""
    children = self.named_children()
    if isinstance(idx, slice):
        gone = set(range(len(children))[idx])
    else:
        gone = {_absolute_index(self, idx)}
    for name, _ in children:
        self.unregister_module(name)
    for i, child in enumerate(child for j, (_, child) in enumerate(children) if j not in gone):
        self.add_module(str(i), child)


def _pop(self, key):
    module = self[key]
    del self[key]
    return module


def _sequential_insert(self, index, module):
    """torch's Sequential.insert: before `index` (len(s) appends), with its checks."""
    if not isinstance(module, Module):
        raise AssertionError('module should be of type: {}'.format(Module))
    n = len(self)
    if not (-n <= index <= n):
        raise IndexError('Index out of range: {}'.format(index))
    self._insert(index + n if index < 0 else index, module)
    return self


def _module_list_insert(self, index, module):
    """torch's ModuleList.insert: before `index`, returning None."""
    self._insert(index, module)


def _extend(self, modules):
    for module in modules:
        self.append(module)
    return self


def _sequential_add(self, other):
    """s + t: a new Sequential of s's modules, then t's, numbered anew."""
    if not isinstance(other, Sequential):
        raise ValueError("add operator supports only objects of Sequential class, but {} is given.".format(
            str(type(other))))
    return _extend(_extend(Sequential(), self), other)


def _sequential_init(self, *args):
    """Sequential(a, b) numbers its modules; Sequential(OrderedDict(...)) names them, as torch's."""
    if len(args) == 1 and isinstance(args[0], OrderedDict):
        _cpp_sequential_init(self)
        for key, module in args[0].items():
            self.add_module(key, module)
    else:
        _cpp_sequential_init(self, *args)


def _module_list_init(self, modules=None):
    _cpp_module_list_init(self)
    if modules is not None:
        _extend(self, modules)


for container, getitem, insert in ((Sequential, _sequential_getitem, _sequential_insert),
                                   (ModuleList, _module_list_getitem, _module_list_insert)):
    container.__getitem__ = getitem
    container.__setitem__ = _setitem
    container.__delitem__ = _delitem
    container.__iter__ = lambda self: iter(self.children())
    container.insert = insert
    container.pop = _pop
    container.extend = _extend
Sequential.__add__ = _sequential_add
ModuleList.__iadd__ = _extend
_cpp_sequential_init = Sequential.__init__
Sequential.__init__ = _sequential_init
_cpp_module_list_init = ModuleList.__init__
ModuleList.__init__ = _module_list_init


def _update_pairs(kind, values):
    """(key, value) of each element of a sequence given to update, with torch's checks."""
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is" + type(pair).__name__)
        if not len(pair) == 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]


def _module_dict_init(self, modules=None):
    _cpp_module_dict_init(self)
    if modules is not None:
        self.update(modules)


def _module_dict_getitem(self, key):
    if key not in self:
        raise KeyError(key)
    return self._get(key)


def _module_dict_delitem(self, key):
    if key not in self:
        raise KeyError(key)
    self.unregister_module(key)


def _module_dict_update(self, modules):
    if not isinstance(modules, Iterable):
        raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                        + type(modules).__name__)
    if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
        pairs = list(modules.items())
    else:
        pairs = _update_pairs("ModuleDict", modules)
    for key, module in pairs:
        self[key] = module


_cpp_module_dict_init = ModuleDict.__init__
ModuleDict.__init__ = _module_dict_init
ModuleDict.__getitem__ = _module_dict_getitem
ModuleDict.__setitem__ = lambda self, key, module: self.add_module(key, module)  # torch's checks of the key
ModuleDict.__delitem__ = _module_dict_delitem
ModuleDict.__iter__ = lambda self: iter(self._keys())
ModuleDict.keys = lambda self: OrderedDict(self.named_children()).keys()  # torch's views of its _modules
ModuleDict.values = lambda self: OrderedDict(self.named_children()).values()
ModuleDict.items = lambda self: OrderedDict(self.named_children()).items()
ModuleDict.pop = _pop
ModuleDict.update = _module_dict_update
