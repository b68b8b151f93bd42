"""Autograd from Python walks the C++ graph: grad_fn is the C++ node, backward fills .grad, and the
modes (no_grad, inference_mode, autocast) are the C++ guards held for a `with` block."""
import pytest

import ember as torch


def test_backward_fills_the_leaves_grad():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    assert w.grad.tolist() == [2.0, 4.0, 6.0]
    assert w.is_leaf and not loss.is_leaf
    w.grad = None
    assert w.grad is None


def test_grad_fn_is_the_graph_backward_runs():
    x = torch.ones(2, requires_grad=True)
    y = (x * 2).sum()
    assert y.grad_fn.name() == "SumBackward0"
    assert repr(y.grad_fn).startswith("<SumBackward0 object at 0x")
    ((mul, input_nr),) = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and input_nr == 0
    accumulate, _ = mul.next_functions[0]
    assert repr(accumulate).startswith("<AccumulateGrad object at")
    assert accumulate.variable.is_alias_of(x)


def test_a_kept_graph_holds_its_saved_tensors():
    x = torch.ones(3, requires_grad=True)
    y = (x.exp() * x).sum()
    saved = torch.autograd.saved_tensors_in_graph(y)
    assert [node for node, _ in saved] == ["MulBackward0", "MulBackward0", "ExpBackward0"]
    y.backward()
    assert torch.autograd.saved_tensors_in_graph(y) == []


def test_no_grad_and_set_grad_enabled_switch_recording_for_a_block_and_as_decorators():
    x = torch.ones(1, requires_grad=True)
    with torch.no_grad():
        assert not (x * 2).requires_grad
        with torch.enable_grad():
            assert (x * 2).requires_grad
    assert torch.is_grad_enabled() and (x * 2).requires_grad

    @torch.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_inference_mode_results_cannot_be_saved_for_backward():
    layer = torch.nn.Linear(4, 4)
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
        b = layer(torch.randn(2, 4))
    assert not torch.is_inference_mode_enabled()
    assert b.is_inference()
    with pytest.raises(RuntimeError, match=r"^Inference tensors cannot be saved for backward\."):
        (b * torch.ones(1, requires_grad=True)).sum().backward()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        b += 1


def test_autocast_runs_matrix_products_in_bfloat16_and_sums_in_float32():
    layer = torch.nn.Linear(8, 8)
    x = torch.randn(4, 8)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.is_autocast_cpu_enabled()
        out = layer(x)
        total = out.sum()
    assert not torch.is_autocast_cpu_enabled()
    assert out.dtype == torch.bfloat16 and total.dtype == torch.float32
    assert layer(x).dtype == torch.float32


def test_in_place_change_of_a_saved_tensor_is_caught_at_backward():
    a = torch.ones(3, requires_grad=True)
    b = a * 1
    c = (b * b).sum()
    b += 1
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified"):
        c.backward()


def test_leaves_requires_grad_flag_and_its_errors():
    t = torch.zeros(2)
    t.requires_grad = True
    assert t.requires_grad_(False) is t and not t.requires_grad
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        torch.zeros(2, dtype=torch.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (torch.ones(1, requires_grad=True) * 2).requires_grad = False
