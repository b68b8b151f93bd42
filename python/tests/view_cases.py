"""What the tests of the view fixtures share (test_composite_views.py, test_views_more.py): the input
their scripts make, the profile's event names as PyTorch's and ember's can be compared, and the
check of a call's outputs against the fields the scripts record."""
import math

import pytest

import ember


def arange_leaf(sizes):
    """A case's input: arange(n) with the case's sizes, a leaf that requires grad and is no view."""
    return ember.arange(float(math.prod(sizes))).reshape(sizes).clone().requires_grad_()


def collapsed(names):
    """Event names with a name repeated at once kept once (PyTorch sometimes records an op that
    forwards to its other overload twice; tests/view_cases.h says more)."""
    return [name for i, name in enumerate(names) if i == 0 or names[i - 1] != name]


def flat_values(spec):
    return [float(v) if isinstance(v, str) else v for v in spec["data"]]


def check_outputs(result, expected_outputs, x):
    """Each output's values, strides, node and view-ness, and whether it is x's view or x itself;
    the outputs as a list."""
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    assert len(results) == len(expected_outputs)
    for out, expected in zip(results, expected_outputs):
        assert list(out.shape) == expected["value"]["shape"]
        assert out.detach().reshape(-1).tolist() == flat_values(expected["value"])
        assert list(out.stride()) == expected["strides"]
        assert type(out.grad_fn).__name__ == expected["grad_fn"]
        assert out._is_view() == expected["is_view"]
        assert (out._base is x) == expected["base_is_x"]
        assert (out is x) == expected["same_as_x"]
    return results


def check_refused(error):
    """A refused call of a fixture ("code", with `torch` being ember) raises PyTorch's exception type
    and text."""
    torch = ember  # noqa: F841 - the fixture's code names it
    with pytest.raises(Exception) as raised:
        eval(error["code"])
    assert type(raised.value).__name__ == error["type"]
    assert str(raised.value) == error["message"]
