"""ember.utils.dispatch_trace from Python: the same small programs as tests/test_dispatch_trace.cpp,
written in Python, trace the same text, compared with the same golden files
(tests/fixtures/dispatch_trace/): Python and C++ are two doors to one engine, and the trace is the
engine's. Also: where the text goes, and EMBER_TRACE=1."""
import os
import subprocess
import sys

import pytest

import ember as torch

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "dispatch_trace")


def golden(name):
    with open(os.path.join(GOLDEN, name + ".txt")) as f:
        return f.read()


def traced(program):
    with torch.utils.dispatch_trace(file=None) as trace:
        program()
    return trace.text


def test_a_linear_forward_and_backward_traces_as_from_cpp():
    torch.manual_seed(0)
    linear = torch.nn.Linear(3, 2)
    x = torch.ones(4, 3)
    assert traced(lambda: linear(x).sum().backward()) == golden("linear_forward_backward")


def test_an_inplace_op_on_a_view_of_a_saved_tensor_traces_the_refused_backward():
    x = torch.ones(4, requires_grad=True)

    def program():
        y = x.exp()
        head = y[0:2]
        head.exp_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()

    assert traced(program) == golden("inplace_on_a_saved_view")


def test_no_grad_and_inference_mode_trace_as_from_cpp():
    w = torch.ones(3, requires_grad=True)

    def program():
        with torch.no_grad():
            w * w
        with torch.inference_mode():
            made_inside = w * w
            made_inside * made_inside

    assert traced(program) == golden("no_grad_and_inference_mode")


def test_a_hook_and_retain_grad_trace_as_from_cpp():
    x = torch.ones(3, requires_grad=True)

    def program():
        y = x * x
        y.retain_grad()
        y.register_hook(lambda grad: grad * grad)
        y.sum().backward()

    assert traced(program) == golden("hooks_and_retain_grad")


def test_the_shape_error_is_in_the_trace():
    x, weight = torch.ones(4, 8), torch.ones(2, 16)

    def program():
        with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x8 and 16x2\)"):
            torch.nn.functional.linear(x, weight)

    assert traced(program) == golden("shape_error")


def test_the_trace_is_written_to_stderr_when_the_block_ends(capsys):
    x = torch.ones(2)
    with torch.utils.dispatch_trace() as trace:
        x + x
    assert capsys.readouterr().err == trace.text
    assert trace.text.splitlines()[0] == "aten::add(t0, t0, 1)"


def test_ember_trace_1_traces_a_whole_program_to_stderr():
    program = "import ember as torch\nx = torch.ones(2)\nx + x\n"
    environment = dict(os.environ, EMBER_TRACE="1")
    run = subprocess.run([sys.executable, "-c", program], env=environment, capture_output=True, text=True, check=True)
    assert "aten::add(t" in run.stderr
    assert "  kernel: CPU binary" in run.stderr
