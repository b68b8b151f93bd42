"""ember used interactively, `python3 -c "..."` as the README shows it: a view changed in place, the
version counter, a graph and its gradient, printed as PyTorch prints them. Where python3-torch is
installed, the same command with `import torch` must print the same text."""
import os
import subprocess
import sys

import pytest

# The README's command (python3 -c "..."), run from the repository root with PYTHONPATH=build/python.
COMMAND = ("import ember as torch; t = torch.arange(6.).reshape(2, 3); row = t[0]; row += 100; print(t); "
           "print(t._version, row._is_view()); w = torch.ones(3, requires_grad=True); y = (w * w).sum(); print(y); "
           "print(y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions]); y.backward(); print(w.grad)")
# What PyTorch 1.13 prints for it (the differential case below checks this against torch itself).
PRINTED = """tensor([[100., 101., 102.],
        [  3.,   4.,   5.]])
1 True
tensor(3., grad_fn=<SumBackward0>)
SumBackward0 ['MulBackward0']
tensor([2., 2., 2.])
"""


def run(command):
    result = subprocess.run([sys.executable, "-c", command], capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_readme_shows_this_command():
    readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
    with open(readme, encoding="utf-8") as f:
        assert f'python3 -c "{COMMAND}"' in f.read()


def test_the_readme_command_prints_what_pytorch_prints():
    assert run(COMMAND) == PRINTED


def test_the_same_command_with_import_torch_prints_the_same():
    pytest.importorskip("torch", reason="python3-torch is not installed")
    assert run(COMMAND.replace("import ember as torch", "import torch")) == run(COMMAND)


def test_without_its_compiled_module_ember_says_how_to_build_it(tmp_path):
    # The package's Python files alone, as after a configure that built no module (or for another
    # Python): the import names the missing _C and the command that builds it.
    import ember
    package = os.path.dirname(ember.__file__)
    copy = tmp_path / "ember"
    copy.mkdir()
    with open(os.path.join(package, "__init__.py"), encoding="utf-8") as f:
        (copy / "__init__.py").write_text(f.read(), encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", "import ember"], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert result.returncode == 1
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: ember's compiled module _C is not beside ")
    assert "bash tools/ember.sh demo" in last_line
