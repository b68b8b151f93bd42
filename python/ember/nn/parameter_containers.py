"""torch.nn.ParameterList and ParameterDict from Python (torch/nn/modules/container.py of 1.13),
over ember's C++ ones (engine/nn/parameter_containers.h): a plain tensor given to one becomes a
Parameter, as in torch; their entries are their registered parameters, so they print, and appear
in named_parameters() and state_dict(), as PyTorch's. torch 1.13 also lets them hold objects that
are no tensors (as plain attributes); ember's hold tensors only, and say so with a TypeError."""
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .. import _C
from ._parameter import Parameter, as_parameter
from .containers import _absolute_index, _update_pairs

ParameterList = _C.ParameterList
ParameterDict = _C.ParameterDict


def _as_parameter(container, value):
    """torch's conversion of what a container is given: a tensor that is no Parameter becomes one."""
    if not isinstance(value, _C.Tensor):
        raise TypeError(f"ember's {container} holds tensors only, not {type(value).__name__}")
    return value if isinstance(value, Parameter) else Parameter(value)


def _entry_repr(key, p, type_name):
    size_str = 'x'.join(str(size) for size in p.size())
    device_str = '' if not p.is_cuda else ' (GPU {})'.format(p.get_device())
    return '  ({}): {} containing: [{} of size {}{}]'.format(
        key, "Parameter" if isinstance(p, Parameter) else "Tensor", type_name, size_str, device_str)


def _list_init(self, values=None):
    _cpp_list_init(self)
    if values is not None:
        self.extend(values)


def _list_getitem(self, idx):
    if isinstance(idx, slice):
        return ParameterList([self[i] for i in range(*idx.indices(len(self)))])
    return as_parameter(self._at(_absolute_index(self, idx)))


def _list_setitem(self, idx, param):
    self._set(_absolute_index(self, idx), _as_parameter("ParameterList", param))


def _list_append(self, value):
    self._append(_as_parameter("ParameterList", value))
    return self


def _list_extend(self, values):
    if not isinstance(values, Iterable) or isinstance(values, _C.Tensor):
        raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
    for value in values:
        self.append(value)
    return self


def _list_call(self, *args, **kwargs):
    raise RuntimeError('ParameterList should not be called.')


_cpp_list_init = ParameterList.__init__
ParameterList.__init__ = _list_init
ParameterList.__getitem__ = _list_getitem
ParameterList.__setitem__ = _list_setitem
ParameterList.__iter__ = lambda self: iter(self[i] for i in range(len(self)))
ParameterList.__iadd__ = _list_extend
ParameterList.__call__ = _list_call
ParameterList.append = _list_append
ParameterList.extend = _list_extend
ParameterList.extra_repr = lambda self: '\n'.join(_entry_repr(k, p, p.dtype) for k, p in enumerate(self))


def _key(key):
    """torch's _key_to_attr: a ParameterDict's keys are strings."""
    if not isinstance(key, str):
        raise TypeError("Index given to ParameterDict cannot be used as a key as it is "
                        f"not a string (type is '{type(key).__name__}'). Open an issue on "
                        "github if you need non-string keys.")
    return key


def _dict_init(self, parameters=None):
    _cpp_dict_init(self)
    if parameters is not None:
        self.update(parameters)


def _dict_getitem(self, key):
    if _key(key) not in self:  # torch's getattr(self, key): an attribute it does not have
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")
    return as_parameter(self._get(key))


def _dict_delitem(self, key):
    if key not in self:
        raise KeyError(key)
    self._pop(_key(key))


def _dict_pop(self, key):
    parameter = self[key]
    del self[key]
    return parameter


def _dict_clear(self):
    for key in self._keys():
        del self[key]


def _dict_popitem(self):
    key = self._keys()[-1]
    return key, self.pop(key)


def _dict_update(self, parameters):
    if not isinstance(parameters, Iterable):
        raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                        + type(parameters).__name__)
    if isinstance(parameters, (OrderedDict, ParameterDict)):
        pairs = list(parameters.items())
    elif isinstance(parameters, Mapping):
        pairs = sorted(parameters.items())
    else:
        pairs = _update_pairs("ParameterDict", parameters)
    for key, parameter in pairs:
        self[key] = parameter


def _dict_setdefault(self, key, default=None):
    if key not in self:
        self[key] = default
    return self[key]


def _dict_call(self, input):
    raise RuntimeError('ParameterDict should not be called.')


def _dict_or(self, other):
    copy = self.copy()
    copy.update(other)
    return copy


_cpp_dict_init = ParameterDict.__init__
ParameterDict.__init__ = _dict_init
ParameterDict.__getitem__ = _dict_getitem
ParameterDict.__setitem__ = lambda self, key, value: self._insert(_key(key), _as_parameter("ParameterDict", value))
ParameterDict.__delitem__ = _dict_delitem
ParameterDict.__iter__ = lambda self: iter(self._keys())
ParameterDict.__reversed__ = lambda self: reversed(self._keys())
ParameterDict.__call__ = _dict_call
ParameterDict.__or__ = _dict_or
ParameterDict.__ior__ = lambda self, other: self.update(other) or self
ParameterDict.copy = lambda self: ParameterDict(OrderedDict(self.items()))
ParameterDict.setdefault = _dict_setdefault
ParameterDict.clear = _dict_clear
ParameterDict.pop = _dict_pop
ParameterDict.popitem = _dict_popitem
ParameterDict.get = lambda self, key, default=None: self[key] if key in self else default
ParameterDict.fromkeys = lambda self, keys, default=None: ParameterDict((k, default) for k in keys)
ParameterDict.keys = lambda self: dict.fromkeys(self._keys()).keys()  # torch's view of its _keys
ParameterDict.items = lambda self: ((k, self[k]) for k in self._keys())
ParameterDict.values = lambda self: (self[k] for k in self._keys())
ParameterDict.update = _dict_update
ParameterDict.extra_repr = lambda self: '\n'.join(_entry_repr(k, p, _C.typename(p)) for k, p in self.items())
