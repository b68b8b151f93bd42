"""What running PyTorch's own test_autograd.py against ember found (issue 35), from Python: the
engine differences and the texts of custom Functions, in-place ops on their views, and hooks that
change a gradient, which Python names by the hook's __name__. Every expected value and text is
PyTorch's (tests/fixtures/fidelity.json, tools/fixtures/fidelity_pytorch_tests.py; the C++ side is
tests/test_fidelity_pytorch_tests.cpp)."""
import json
import os

import pytest

import ember as torch
from ember.autograd import Function

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "fidelity.json")
with open(FIXTURE) as f:
    CASES = {case["name"]: case for case in json.load(f)["cases"]}


def message(name):
    return CASES[name]["message"]


def raises_with(name, fn):
    with pytest.raises(RuntimeError) as caught:
        fn()
    assert str(caught.value) == message(name)


def test_numpy_of_a_tensor_that_requires_grad_is_allowed_under_no_grad():
    x = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        assert x.numpy().tolist() == CASES["numpy_of_requires_grad_under_no_grad"]["values"]
    raises_with("numpy_of_requires_grad", x.numpy)


def test_assigning_data_keeps_the_version_counter_the_views_share():
    expected = CASES["data_assignment_keeps_the_version"]
    x = torch.ones(3)
    view = x[1:]
    x.add_(1)
    x.add_(1)
    x.data = torch.zeros(3)
    assert x._version == expected["version_after"]
    view.add_(1)
    assert (x._version, view._version) == (expected["version_after_view_add_"], expected["view_version"])
    assert x.tolist() == expected["values"] and view.tolist() == expected["view_values"]


def test_a_view_of_an_inference_tensor_outside_inference_mode_records_nothing():
    expected = CASES["inference_tensor_viewed_outside"]
    with torch.inference_mode():
        x = torch.ones(2, 3, requires_grad=True)
    v = x.view(6)
    assert (v.is_inference(), v.requires_grad, v.grad_fn is not None, v._is_view()) == (
        expected["is_inference"], expected["requires_grad"], expected["has_grad_fn"], expected["is_view"])


class Scale(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, grad):
        return grad


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return torch.ones(3)


class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


class DoubleInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        return x.mul_(2)

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_a_custom_function_that_modifies_its_input_says_so_with_mark_dirty():
    raises_with("function_dirty_leaf", lambda: DoubleInPlace.apply(torch.ones(2, requires_grad=True)))
    expected = CASES["function_dirty_input"]
    leaf = torch.ones(2, requires_grad=True)
    doubled = DoubleInPlace.apply(leaf * 1)
    assert doubled.grad_fn.name() == expected["grad_fn"]
    doubled.sum().backward()
    assert leaf.grad.tolist() == expected["grad"]  # and, as every test, nothing left allocated


def test_a_custom_functions_gradients_are_checked_against_its_inputs():
    raises_with("function_too_few_gradients",
                lambda: Scale.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward())
    raises_with("function_gradient_of_wrong_shape",
                lambda: WrongShape.apply(torch.ones(2, requires_grad=True)).sum().backward())


def test_a_view_a_custom_function_returns_may_not_be_modified_in_place():
    view = Identity.apply(torch.ones(2, requires_grad=True) * 1)
    raises_with("function_view_output_modified_in_place", lambda: view.mul_(2))


def test_a_hook_that_changes_its_gradient_is_named_in_the_error():
    def backward_through(hook):
        y = torch.ones(2, requires_grad=True) * 2
        y.register_hook(hook)
        y.sum().backward()

    def resized(grad):
        return torch.ones(3)

    def retyped(grad):
        return grad.double()

    raises_with("hook_changes_size", lambda: backward_through(resized))
    raises_with("hook_changes_type", lambda: backward_through(retyped))


def test_a_node_hook_must_return_one_gradient_per_input():
    y = torch.ones(2, requires_grad=True) * 2
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (None, None, None))
    raises_with("node_hook_returns_too_many", lambda: y.sum().backward())
