"""torch.optim.Optimizer, written as torch/optim/optimizer.py over ember's C++ optimizers
(engine/optim/, python/src/optim.cpp): torch's param_groups (a list of dicts), defaults, state,
add_param_group, state_dict and load_state_dict, with PyTorch 1.13's checks, texts and exception
types. The dicts are torch's, keeping what they are given (an int stays an int when printed); each
hands its options to its C++ group as they are set, so a learning rate changed between steps is the
next step's, as in PyTorch. C++ holds the state and steps."""
import warnings
from collections import defaultdict

from .. import _C
from ..autograd import enable_grad


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _ParamGroup(dict):
    """One of torch's param_groups dicts, which gives each value set in it to its C++ group too."""

    def __init__(self, optimizer, index, group):
        super().__init__(group)
        self._optimizer, self._index = optimizer, index
        for key, value in group.items():
            self._give(key, value)

    def __setitem__(self, key, value):
        self._give(key, value)
        super().__setitem__(key, value)

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def _give(self, key, value):
        if key == "params":
            self._optimizer._set_params(self._index, value)
        else:
            self._optimizer._set_option(self._index, key, value)


class Optimizer:
    """torch.optim.Optimizer: SGD, Adam and AdamW derive from it and from their C++ class."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _C.typename(params))
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    @property
    def state(self):
        """torch's optimizer.state: each parameter that has stepped, to its state's tensors by name."""
        return defaultdict(dict, self._state())

    def __repr__(self):
        format_string = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            format_string += '\n'
            format_string += 'Parameter Group {0}\n'.format(i)
            for key in sorted(group.keys()):
                if key != 'params':
                    format_string += '    {0}: {1}\n'.format(key, group[key])
        format_string += ')'
        return format_string

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        super().step()
        return loss

    def state_dict(self):
        """torch's {'state': {index: {name: tensor}}, 'param_groups': [{options..., 'params': [indices]}]}:
        the parameters numbered across the groups in order; the tensors are the optimizer's own."""
        param_groups, start = [], 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != 'params'}
            packed['params'] = list(range(start, start + len(group['params'])))
            start += len(group['params'])
            param_groups.append(packed)
        return {'state': self._saved_state(), 'param_groups': param_groups}

    def load_state_dict(self, state_dict):
        """Copies the saved state onto this optimizer's parameters, matched by their numbers, and takes
        the saved groups' options (the groups keep their own parameters)."""
        self._load_state(state_dict)
        self.param_groups = [_ParamGroup(self, i, dict(saved, params=group['params']))
                             for i, (group, saved) in enumerate(zip(self.param_groups, state_dict['param_groups']))]

    def add_param_group(self, param_group):
        assert isinstance(param_group, dict), "param group must be a dict"

        params = param_group['params']
        if isinstance(params, _C.Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError('optimizer parameters need to be organized in ordered collections, but '
                            'the ordering of tensors in sets will change between runs. Please use a list instead.')
        else:
            param_group['params'] = list(params)

        for param in param_group['params']:
            if not isinstance(param, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _C.typename(param))

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " + name)
            else:
                param_group.setdefault(name, default)

        params = param_group['params']
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)

        # non-leaf parameters and parameters already in a group: C++'s checks, PyTorch's ValueErrors
        self._add_param_group(param_group['params'], {k: v for k, v in param_group.items() if k != 'params'})
        self.param_groups.append(_ParamGroup(self, len(self.param_groups), param_group))
