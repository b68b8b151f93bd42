"""The two doors stay in step for the classes too: every public method of ember's C++ optimizers,
Module and containers (libtorch's names) is reachable from the Python class that binds it, by
torch's name, or is named below with how Python spells it. A method added in C++ and not bound
fails here. (test_bindings.py does the same for ops.h and Tensor.)"""
import os
import re

import pytest

import ember
import ember.nn as nn

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

# (header, C++ class, the Python class, {C++ method: how Python spells it, where it differs})
CLASSES = [
    ("engine/optim/optimizer.h", "Optimizer", ember.optim.SGD, {
        "parameters": "iterate optimizer.param_groups[i]['params']",
        "defaults": "the optimizer.defaults dict", "param_groups": "the optimizer.param_groups list of dicts"}),
    ("engine/nn/module.h", "Module", nn.Module, {
        "is_training": "the Module.training property",
        "registered_parameters": "torch's Module._parameters; ember's _registered_parameters()"}),
    ("engine/nn/containers.h", "ChildList", nn.Sequential, {
        "push_back": "append", "size": "len(s)", "is_empty": "not s", "ptr": "s[i]"}),
    ("engine/nn/module_dict.h", "ModuleDictImpl", nn.ModuleDict, {
        "size": "len(d)", "empty": "not d", "contains": "key in d", "insert": "d[key] = module"}),
    ("engine/nn/parameter_containers.h", "ParameterListImpl", nn.ParameterList, {
        "set": "l[i] = p", "at": "l[i]", "size": "len(l)", "is_empty": "not l"}),
    ("engine/nn/parameter_containers.h", "ParameterDictImpl", nn.ParameterDict, {
        "insert": "d[key] = p", "size": "len(d)", "empty": "not d", "contains": "key in d"}),
]


def public_methods(header, class_name):
    """The names of the public methods declared in the class's body (not its constructors, operators
    or destructor)."""
    with open(os.path.join(ROOT, header)) as f:
        text = f.read()
    opening = re.search(rf"^(class|struct) {class_name}\b.*{{$", text, re.MULTILINE)
    body = text[opening.end():text.index("\n};", opening.end())]
    public, section = [], "public" if opening.group(1) == "struct" else "private"
    for line in body.splitlines():
        label = re.match(r"^ (public|protected|private):", line)
        if label:
            section = label.group(1)
            continue
        declared = re.match(r"^  (?! )(?:virtual |static |explicit |template <[^>]*> )*[\w:<>,&*\s]*?[\s&*](\w+)\(", line)
        if section == "public" and declared and declared.group(1) not in (class_name, "operator"):
            public.append(declared.group(1))
    return sorted(set(public))


@pytest.mark.parametrize("header, class_name, python_class, spelled", CLASSES, ids=[c[1] for c in CLASSES])
def test_every_public_method_is_reachable_from_python(header, class_name, python_class, spelled):
    methods = public_methods(header, class_name)
    assert methods, f"no public method found in {class_name}: the reader of {header} is wrong"
    missing = [name for name in methods if name not in spelled and not hasattr(python_class, name)]
    assert missing == [], f"{class_name}'s methods without a Python name (bind them, or say how): {missing}"
    assert set(spelled) <= set(methods), sorted(set(spelled) - set(methods))
