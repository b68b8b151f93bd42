"""torch.compile from Python (python/ember/_compile.py over engine/compile/): the demo block,
written as a Python module, generates the same source as tests/test_compile.cpp's golden files
(Python and C++ are two doors to one compiler); outputs and gradients agree with eager; graph
breaks, recompiles, torch._dynamo.explain, the decorator form, a missing compiler."""
import os

import pytest

import ember as torch
import ember.nn.functional as F

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "compile")


class Block(torch.nn.Module):
    """layer_norm(x * sigmoid(x) + bias + residual): demos/exercises/compiled_block.h's block."""

    def __init__(self, features):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(features) * 0.1)
        self.norm = torch.nn.LayerNorm(features)

    def forward(self, x, residual):
        return self.norm(x * torch.sigmoid(x) + self.bias + residual)


def golden(name):
    with open(os.path.join(GOLDEN, name)) as f:
        return f.read()


def test_the_block_compiled_from_python_generates_the_golden_source():
    block = Block(1024)
    compiled = torch.compile(block)
    compiled(torch.randn(256, 1024, requires_grad=True), torch.randn(256, 1024, requires_grad=True))
    assert compiled._compiled._compiled.source() == golden("block_forward.cpp")
    assert compiled._compiled._compiled.backward_source(0) == golden("block_backward.cpp")


def test_the_compiled_block_gives_eagers_outputs_and_gradients():
    torch.manual_seed(0)
    block = Block(64)
    compiled = torch.compile(block)
    x = torch.randn(16, 64, requires_grad=True)
    residual = torch.randn(16, 64, requires_grad=True)
    compiled(x, residual)
    y = compiled(x, residual)
    expected = block(x, residual)
    assert type(y.grad_fn).__name__ == "CompiledFunctionBackward"
    assert torch.allclose(y, expected, atol=1e-5)
    g = torch.randn(16, 64)
    got = torch.autograd.grad(y, [x, residual, block.bias], g)
    want = torch.autograd.grad(expected, [x, residual, block.bias], g)
    for a, b in zip(got, want):
        assert torch.allclose(a, b, atol=1e-5)


def test_a_function_with_an_op_without_lowering_breaks_the_graph_and_explain_says_so():
    def f(x):
        return torch.softmax(x * 2 + 1, -1).sigmoid()

    explained = torch._dynamo.explain(f)(torch.randn(4, 8))
    assert explained.graph_count == 2
    assert explained.graph_break_count == 1
    assert explained.break_reasons == ["aten::softmax: no lowering"]
    assert explained.op_count == 4
    assert str(explained).startswith("Graph Count: 2\nGraph Break Count: 1\n")


def test_a_new_shape_recompiles_and_the_reason_is_dynamos():
    @torch.compile
    def f(x):
        return x * torch.sigmoid(x)

    x = torch.randn(8, 16)
    f(x)
    assert torch.allclose(f(x), x * torch.sigmoid(x))
    small = torch.randn(4, 16)
    assert torch.allclose(f(small), small * torch.sigmoid(small))
    stats = f._ember_compiled._compiled.stats
    assert stats["recompiles"] == 1
    assert stats["recompile_reasons"] == ["tensor 'x' size mismatch at index 0. expected 8, actual 4"]


def test_a_compiled_module_returns_what_forward_returns_and_guards_training():
    class TwoOutputs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)
            self.dropout = torch.nn.Dropout(0.5)

        def forward(self, x):
            h = self.dropout(torch.relu(self.linear(x)))
            return h, h * 2

    model = TwoOutputs()
    compiled = torch.compile(model)
    x = torch.randn(3, 4)
    first, second = compiled(x)
    assert isinstance(compiled(x), tuple)
    model.eval()
    first, second = compiled(x)
    assert torch.allclose(first, model(x)[0]) and torch.allclose(second, first * 2)
    stats = compiled._compiled._compiled.stats
    assert stats["recompiles"] == 1
    assert "training mismatch" in stats["recompile_reasons"][0]
    assert compiled._orig_mod is model and compiled.linear is model.linear


def test_a_missing_compiler_warns_once_and_runs_the_function_itself(tmp_path, monkeypatch):
    # As Dynamo falls back to the frame: layer_norm runs whole, not as the captured decomposition.
    monkeypatch.setenv("EMBER_CXX", "/nonexistent/python-test/c++")
    monkeypatch.setenv("EMBER_COMPILE_CACHE", str(tmp_path))

    @torch.compile
    def f(x):
        return F.layer_norm(x * torch.sigmoid(x), (4,))

    x = torch.randn(3, 4, requires_grad=True)
    with pytest.warns(UserWarning, match="the compiled function runs eagerly instead"):
        f(x)
    y = f(x)
    assert torch.allclose(y, F.layer_norm(x * torch.sigmoid(x), (4,)))
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    assert f._ember_compiled._compiled.stats["eager_runs"] == 1


def test_a_call_with_a_non_tensor_argument_runs_eagerly():
    compiled = torch.compile(lambda x, scale: x * scale)
    x = torch.randn(2, 3)
    assert torch.equal(compiled(x, 3.0), x * 3.0)


def test_disable_returns_the_model_itself():
    model = torch.nn.Linear(2, 2)
    assert torch.compile(model, disable=True) is model


if __name__ == "__main__":
    pytest.main([__file__])
