"""float32 and float64 sums and means from Python give PyTorch 1.13's bits (tests/fixtures/exact_sums.json,
made by tools/fixtures/exact_sums.py): ember adds in the order ATen's CPU kernel does
(kernels/cascade_sum.h). The inputs are made from each case's seed by the generator's own
tools/fixtures/exact_sum_inputs.py, imported by path (tools/ is not a package); the C++ side is
tests/test_exact_sums.cpp."""
import importlib.util
import json
import math
import os
import struct

import pytest

import ember

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_spec = importlib.util.spec_from_file_location(
    "exact_sum_inputs", os.path.join(_ROOT, "tools", "fixtures", "exact_sum_inputs.py"))
exact_sum_inputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exact_sum_inputs)

with open(os.path.join(_ROOT, "tests", "fixtures", "exact_sums.json")) as f:
    CASES = json.load(f)["cases"]


def _bits(value, dtype):
    """The value's bit pattern in the case's dtype (so that -0.0 and 0.0 differ)."""
    return struct.pack("<f" if dtype == "float32" else "<d", value)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_a_sum_or_mean_is_pytorchs_every_bit(case):
    dtype = case["output"]["dtype"]
    count = math.prod(case["shape"])
    data = exact_sum_inputs.values(case["seed"], count, 23 if dtype == "float32" else 52)
    x = ember.tensor(data, dtype=getattr(ember, dtype)).reshape(case["shape"])
    op = x.sum if case["op"] == "sum" else x.mean
    result = op() if case["dims"] is None else op(case["dims"])
    assert list(result.shape) == case["output"]["shape"]
    got = result.reshape(-1).tolist()
    assert [_bits(v, dtype) for v in got] == [_bits(v, dtype) for v in case["output"]["data"]]
