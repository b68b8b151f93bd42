"""torch.optim's checks of what an optimizer is given, from Python: PyTorch 1.13's exception types
and texts (TypeError for a tensor given as the parameter list or an element that is no tensor,
ValueError for the options and for a non-leaf), and its warning for a parameter given twice
(tests/fixtures/optim.json's "refusals" and "duplicate_warning", tools/fixtures/optim.py). The
optimizers' steps are checked bit for bit from C++ (tests/test_optim.cpp)."""
import json
import os
import warnings

import pytest

import ember

with open(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "optim.json")) as f:
    FIXTURE = json.load(f)


@pytest.mark.parametrize("refusal", FIXTURE["refusals"], ids=lambda refusal: refusal["name"])
def test_a_bad_argument_raises_pytorchs_exception(refusal):
    torch = ember  # noqa: F841 - the fixture's code names it
    w = ember.ones(2, requires_grad=True)  # noqa: F841
    with pytest.raises(Exception) as raised:
        eval(refusal["code"])
    assert type(raised.value).__name__ == refusal["type"]
    assert str(raised.value) == refusal["message"]


def test_a_parameter_given_twice_is_pytorchs_warning():
    w = ember.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.optim.SGD([w, w], lr=0.1)
    assert [str(warning.message) for warning in caught] == [FIXTURE["duplicate_warning"]]
