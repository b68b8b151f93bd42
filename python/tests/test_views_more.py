"""unfold, the *_copy ops, set_ and resize_as_ through the Python door: each call of
tests/fixtures/views_more.json runs its own Python code with `torch` being ember, and must give
PyTorch 1.13's values, strides, nodes, views, storage, profiler events and gradient; the refused
calls PyTorch's exception types and texts. set_ and resize_as_ run the fixture script's own
functions (tools/fixtures/views_more.py) with `torch` being ember. The C++ door is
tests/test_views_more.cpp."""
import json
import os

import pytest

import ember
from view_cases import arange_leaf, check_outputs, check_refused, collapsed, flat_values

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
with open(os.path.join(ROOT, "tests", "fixtures", "views_more.json")) as f:
    FIXTURES = json.load(f)


@pytest.mark.parametrize("case", FIXTURES["cases"], ids=lambda case: case["name"])
def test_each_call_gives_pytorchs_outputs_events_and_gradient(case):
    torch = ember  # noqa: F841 - the fixture's code names it
    x = arange_leaf(case["input"])
    with ember.profiler.profile() as profile:
        result = eval(case["code"])
    assert collapsed([event.name for event in profile.events()]) == collapsed(case["events"])
    results = check_outputs(result, case["outputs"], x)
    for out, expected in zip(results, case["outputs"]):
        assert (out.storage().data_ptr() == x.storage().data_ptr()) == expected["shares_storage"]
    total = sum((t * ember.arange(float(t.numel())).reshape(t.shape)).sum() for t in results)
    if case["backward_error"] is None:
        total.backward()
        assert x.grad.reshape(-1).tolist() == flat_values(case["grad"])
    else:
        with pytest.raises(RuntimeError) as raised:
            total.backward()
        assert str(raised.value) == case["backward_error"]


@pytest.mark.parametrize("error", FIXTURES["errors"], ids=lambda error: error["name"])
def test_each_refused_call_raises_pytorchs_exception(error):
    check_refused(error)


def fixture_script_under_ember():
    """tools/fixtures/views_more.py's functions, with `torch` being ember."""
    with open(os.path.join(ROOT, "tools", "fixtures", "views_more.py")) as script:
        lines = script.read().splitlines()
    source = "\n".join(line for line in lines if not line.startswith(("import ", "from ")))  # torch, spec
    namespace = {"torch": ember, "__name__": "views_more_under_ember"}
    exec(compile(source, "views_more.py", "exec"), namespace)
    return namespace


def test_set_shares_storage_keeps_its_version_counter_and_grows_the_storage_as_pytorchs():
    assert fixture_script_under_ember()["set_cases"]() == FIXTURES["set"]


def test_resize_as_takes_the_sizes_contiguous_as_pytorchs():
    assert fixture_script_under_ember()["resize_as_cases"]() == FIXTURES["resize_as"]


def test_set_returns_the_tensor_it_changed():
    a, b = ember.zeros(2), ember.ones(3)
    assert a.set_(b) is a
    assert a.set_() is a
    assert a.set_(b.storage(), 0, (2,), (1,)) is a
    assert a.resize_as_(b) is a
