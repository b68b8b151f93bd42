"""torch.nn's containers and attribute registration from Python, against PyTorch 1.13
(tests/fixtures/nn_modules.json's "containers", tools/fixtures/nn_modules.py): each program of
statements runs here with `import ember as torch`, and what it shows (reprs of modules, names,
parameters) or the exception its last statement raises (type and text) must be PyTorch's.
Sequential's and ModuleList's insert, pop and del (renumbering what follows), ModuleDict,
ParameterList and ParameterDict (held by a module: their parameters under its names), a parameter
replaced by assignment or register_parameter, set to None or refused a tensor, a child or a buffer
replaced, zero_grad, and extra_repr written in Python."""
import json
import os
from collections import OrderedDict

import pytest

import ember as torch
import ember.nn as nn

with open(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "nn_modules.json")) as f:
    PROGRAMS = json.load(f)["containers"]
with open(os.path.join(os.path.dirname(__file__), "..", "..", "tools", "fixtures", "nn_modules.py")) as f:
    SOURCE = f.read()


class ContainerNet(nn.Module):  # tools/fixtures/nn_modules.py's, with ember
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({"enc": nn.Linear(2, 2), "act": nn.ReLU()})
        self.scales = nn.ParameterList([torch.ones(2), torch.ones(1)])
        self.gains = nn.ParameterDict({"out": torch.ones(1)})
        self.register_buffer("steps", torch.zeros(1))
        self.scale = nn.Parameter(torch.ones(1))


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.factor = 2

    def extra_repr(self):
        return f"factor={self.factor}"


def generator_programs():
    """The programs' code, read from the generator (one text for both runs)."""
    namespace, start = {}, SOURCE.index("CONTAINER_PROGRAMS = {")
    exec(SOURCE[start:SOURCE.index("\n}\n", start) + 3], namespace)
    return namespace["CONTAINER_PROGRAMS"]


CODES = generator_programs()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_container_program_shows_or_raises_what_pytorch_does(name):
    expected, shown = PROGRAMS[name], []
    namespace = {"torch": torch, "nn": nn, "OrderedDict": OrderedDict, "Net": ContainerNet, "Scaled": Scaled,
                 "show": lambda *values: shown.extend(repr(v) for v in values)}
    code = CODES[name]
    if "error" in expected:
        with pytest.raises(Exception) as raised:
            exec(code, namespace)
        assert type(raised.value).__name__ == expected["error"]["type"]
        assert str(raised.value) == expected["error"]["message"]
    else:
        exec(code, namespace)
        assert shown == expected["shown"]


def test_every_program_of_the_generator_has_its_fixture():
    assert sorted(CODES) == sorted(PROGRAMS)


def test_a_parameter_container_holds_tensors_only_in_ember():
    with pytest.raises(TypeError, match="ember's ParameterList holds tensors only, not int"):
        nn.ParameterList([1])
    with pytest.raises(TypeError, match="ember's ParameterDict holds tensors only, not str"):
        nn.ParameterDict({"a": "b"})


def test_an_optimizer_over_a_parameter_list_updates_its_entries():
    scales = nn.ParameterList([torch.ones(2), torch.ones(1)])
    optimizer = torch.optim.SGD(scales.parameters(), lr=0.5)
    (scales[0].sum() + scales[1].sum()).backward()
    optimizer.step()
    assert [p.tolist() for p in scales] == [[0.5, 0.5], [0.5]]
