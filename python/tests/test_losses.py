"""The losses of class-index targets through the Python door, against PyTorch 1.13
(tests/fixtures/losses.json, tools/fixtures/losses.py): F.nll_loss and F.cross_entropy with
torch's keyword arguments (weight, ignore_index, reduction, label_smoothing, and the legacy
size_average and reduce), and nn.NLLLoss, nn.CrossEntropyLoss and nn.MSELoss as torch builds them.
Each call's value, gradient and node; each refused call's exception type and text. The C++ door
is tests/test_losses.cpp."""
import json
import math
import os
import warnings

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "losses.json")
with open(FIXTURE) as f:
    FIXTURES = json.load(f)

DTYPES = {"float32": ember.float32, "float64": ember.float64, "bfloat16": ember.bfloat16, "float16": ember.float16,
          "int64": ember.int64, "bool": ember.bool}


def values(spec):
    return [float(v) if isinstance(v, str) else v for v in spec["data"]]


def apply_views(t, views):
    for step in views or []:
        if step[0] == "t":
            t = t.t()
        elif step[0] == "transpose":
            t = t.transpose(step[1], step[2])
        elif step[0] == "slice":
            assert step[1] == 0, step  # the fixture slices weights, along their one dim
            t = t[step[2]:step[3]:step[4]]
        else:
            raise ValueError(step)
    return t


def made(spec, requires_grad=False):
    """The spec's base tensor (a leaf, requiring grad when asked) and its view."""
    base = ember.tensor(values(spec), dtype=DTYPES[spec["dtype"]]).reshape(spec["shape"])
    if requires_grad:
        base.requires_grad_()
    return base, apply_views(base, spec.get("views"))


def close(actual, spec, exact):
    got = actual.detach().double().reshape(-1).tolist()
    want = values(spec)
    assert list(actual.shape) == spec["shape"]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if math.isnan(w):
            assert math.isnan(g)
        elif exact:
            assert g == w
        else:
            assert g == pytest.approx(w, rel=8e-3 if spec["dtype"] == "bfloat16" else 1e-5, abs=1e-6)


def loss_of(case, x, target, weight):
    kwargs = {"weight": weight, "ignore_index": case["ignore_index"], "reduction": case["reduction"]}
    if case["fn"] == "nll_loss":
        return F.nll_loss(x, target, **kwargs)
    return F.cross_entropy(x, target, label_smoothing=case["label_smoothing"], **kwargs)


def module_of(case, weight):
    if case["fn"] == "nll_loss":
        return nn.NLLLoss(weight, ignore_index=case["ignore_index"], reduction=case["reduction"])
    return nn.CrossEntropyLoss(weight=weight, ignore_index=case["ignore_index"], reduction=case["reduction"],
                               label_smoothing=case["label_smoothing"])


def weight_of(case):
    return made(case["weight"])[1] if case["weight"] is not None else None


@pytest.mark.parametrize("case", FIXTURES["calls"], ids=lambda case: case["name"])
def test_each_call_gives_pytorchs_value_gradient_and_node(case):
    base, x = made(case["input"], requires_grad=True)
    target = made(case["target"])[1]
    loss = loss_of(case, x, target, weight_of(case))
    exact = case["fn"] == "nll_loss" and case["input"]["dtype"] != "bfloat16"  # PyTorch's summation order
    close(loss, case["output"], exact)
    assert loss.grad_fn.name() == case["grad_fn"]
    first = loss.grad_fn.next_functions[0][0] if loss.grad_fn.next_functions else None
    assert (first.name() if first is not None else None) == case["grad_fn_next"]
    loss.backward(made(case["grad_output"])[1])
    if case["grad"] is not None:
        close(base.grad, case["grad"], exact)
    module_loss = module_of(case, weight_of(case))(x.detach(), target)
    close(module_loss, case["output"], exact)


@pytest.mark.parametrize("error", FIXTURES["errors"], ids=lambda error: error["name"])
def test_each_refused_call_raises_pytorchs_exception(error):
    x = ember.zeros(error["input"]["shape"], dtype=DTYPES[error["input"]["dtype"]])
    x.requires_grad_(error["input_requires_grad"])
    target = made(error["target"])[1]
    weight = made(error["weight"])[1] if error["weight"] is not None else None
    if weight is not None:
        weight.requires_grad_(error["weight_requires_grad"])
    with pytest.raises(Exception) as raised:
        loss_of(error, x, target, weight)
    assert type(raised.value).__name__ == error["type"]
    assert str(raised.value) == error["message"]


@pytest.mark.parametrize("case", FIXTURES["legacy"], ids=lambda c: "size_average=%s,reduce=%s" % (
    c["size_average"], c["reduce"]))
def test_size_average_and_reduce_set_the_reduction_with_pytorchs_warning(case):
    x, target = ember.randn(4, 3), ember.tensor([0, 2, 1, 1])
    legacy = {"size_average": case["size_average"], "reduce": case["reduce"]}
    for make in (nn.NLLLoss, nn.CrossEntropyLoss, nn.MSELoss):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = make(**legacy)
        assert module.reduction == case["reduction"]
        assert [str(w.message) for w in caught] == [case["warning"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        by_legacy = F.cross_entropy(x, target, **legacy)
        by_mse = F.mse_loss(x, x * 2, **legacy)
    assert [str(w.message) for w in caught] == [case["warning"]] * 2
    assert ember.equal(by_legacy, F.cross_entropy(x, target, reduction=case["reduction"]))
    assert ember.equal(by_mse, F.mse_loss(x, x * 2, reduction=case["reduction"]))


def test_the_modules_keep_a_weight_as_pytorchs_buffer_and_check_the_reduction_when_called():
    expected = FIXTURES["modules"]
    weighted = nn.CrossEntropyLoss(weight=ember.tensor([1.0, 2.0, 3.0]), ignore_index=1, label_smoothing=0.1)
    assert list(weighted.state_dict().keys()) == expected["state_dict_weighted"]
    assert list(nn.NLLLoss().state_dict().keys()) == expected["state_dict_plain"]
    assert len(list(weighted.buffers())) == expected["buffers_weighted"]
    assert nn.NLLLoss().weight is expected["weight_plain"]  # None
    assert [repr(nn.NLLLoss()), repr(weighted), repr(nn.MSELoss(reduction="sum"))] == expected["reprs"]
    assert [weighted.ignore_index, weighted.reduction, weighted.label_smoothing] == expected["attributes"]
    refused = nn.NLLLoss(reduction="x")  # made without complaint, as in torch
    with pytest.raises(ValueError) as raised:
        refused(ember.zeros(2, 3), ember.tensor([0, 1]))
    assert str(raised.value) == expected["refused_at_forward"]
    with pytest.raises(ValueError, match="^x is not a valid value for reduction$"):
        nn.MSELoss(reduction="x")(ember.zeros(2), ember.zeros(2))
    weighted.to(ember.float64)
    assert weighted.weight.dtype == ember.float64


def test_elementwise_mean_is_the_mean_with_pytorchs_warning():
    x, target = ember.randn(2, 3), ember.tensor([0, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.nll_loss(x, target, reduction="elementwise_mean")
    assert [str(w.message) for w in caught] == [FIXTURES["elementwise_mean"]]
    assert ember.equal(loss, F.nll_loss(x, target))


def test_a_weight_is_positional_third_as_in_torch():
    x, target, weight = ember.randn(3, 4), ember.tensor([0, 3, 1]), ember.tensor([0.5, 1.0, 2.0, 4.0])
    assert ember.equal(F.nll_loss(x, target, weight), F.nll_loss(x, target, weight=weight))
    assert ember.equal(F.cross_entropy(x, target, weight), F.cross_entropy(x, target, weight=weight))
    assert ember.equal(nn.NLLLoss(weight)(x, target), F.nll_loss(x, target, weight))
