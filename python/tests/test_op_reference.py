"""docs/ops.md, the op reference, names every public op of the C++ API and of the Python module:
a new op, method or binding fails here until `tools/op_reference.py --write` has remade it."""
import os

from op_reference_tool import op_reference


def test_the_op_reference_lists_every_op_as_the_code_has_it():
    kept = op_reference.kept_summaries()
    with open(op_reference.REFERENCE, encoding="utf-8") as f:
        written = f.read()
    assert op_reference.render(lambda name: kept.get(name, "")) == written, (
        "docs/ops.md is out of date: run PYTHONPATH=build/python /usr/bin/python3 tools/op_reference.py --write")


def test_the_reference_gives_pytorchs_summary_and_both_names():
    with open(op_reference.REFERENCE, encoding="utf-8") as f:
        rows = f.read()
    assert ("| `add` | `add()` | `torch.add`, `Tensor.add` | Adds `other`, scaled by `alpha`, to `input`. |"
            in rows.splitlines())
    assert os.path.relpath(op_reference.REFERENCE, op_reference.ROOT) == os.path.join("docs", "ops.md")
