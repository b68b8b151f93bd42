"""The views written with other views through the Python door: each call of
tests/fixtures/composite_views.json (PyTorch 1.13's movedim, swapaxes, T, mT, unflatten,
broadcast_to, broadcast_tensors, reshape_as, tensor_split, hsplit/vsplit/dsplit, atleast_nd) runs
its own Python code with `torch` being ember, and must give PyTorch's values, strides, nodes, views,
profiler events and warning; the refused calls PyTorch's exception types and texts. The C++ door is
tests/test_composite_views.cpp."""
import json
import os
import warnings

import pytest

import ember
from view_cases import arange_leaf, check_outputs, check_refused, collapsed

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "composite_views.json")
with open(FIXTURE) as f:
    FIXTURES = json.load(f)


@pytest.mark.parametrize("case", FIXTURES["cases"], ids=lambda case: case["name"])
def test_each_call_gives_pytorchs_values_nodes_views_and_events(case):
    torch = ember  # noqa: F841 - the fixture's code names it
    inputs = [arange_leaf(sizes) for sizes in case.get("inputs", [case.get("input")])]
    x, other, indices = inputs[0], ember.empty(4, 6), ember.tensor([1, 4])  # noqa: F841 - names the code uses
    ember.set_warn_always(True)  # T's warning is a warn-once in PyTorch: every case sees its own
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with ember.profiler.profile() as profile:
                result = eval(case["code"])
    finally:
        ember.set_warn_always(False)
    assert collapsed([event.name for event in profile.events()]) == collapsed(case["events"])
    assert [str(w.message) for w in caught] == ([case["warning"]] if case["warning"] else [])
    check_outputs(result, case["outputs"], x)


@pytest.mark.parametrize("error", FIXTURES["errors"], ids=lambda error: error["name"])
def test_each_refused_call_raises_pytorchs_exception(error):
    check_refused(error)


def test_a_tensor_and_its_views_share_one_storage_as_pytorchs_storage_shows():
    expected = FIXTURES["storage"]
    t = ember.arange(6.).reshape(2, 3)
    s = t.storage()
    assert (s.data_ptr() == t[1].storage().data_ptr() == t.t().storage().data_ptr()) == expected["views_share"]
    assert (t.clone().storage().data_ptr() == s.data_ptr()) == expected["clone_shares"]
    assert [s.size(), len(s), s.nbytes(), s.element_size()] == [expected[key] for key in
                                                               ("size", "len", "nbytes", "element_size")]
    assert [str(s.dtype), str(s.device), s.tolist(), s[1]] == [expected[key] for key in
                                                              ("dtype", "device", "tolist", "item_1")]
    assert t[1].data_ptr() - s.data_ptr() == expected["view_offset_bytes"]
    assert [repr(ember.arange(3.).storage()), repr(ember.tensor([1, 2]).storage())] == expected["reprs"]
    assert [s.untyped().nbytes(), s.untyped().size(), len(s.untyped())] == expected["untyped"]
    assert t.untyped_storage().nbytes() == expected["nbytes"]
