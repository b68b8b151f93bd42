"""x.pow(e) from Python gives PyTorch 1.13's bits on the CPU, float32 and float64
(tests/fixtures/exact_pow.json, made by tools/fixtures/exact_pow.py): Sleef's pow over PyTorch's
vectors and libm's over the elements they leave, and PyTorch's own operations for its special
exponents (kernels/sleef_pow.h). The C++ side is tests/test_exact_pow.cpp."""
import json
import math
import os
import struct

import pytest

import ember

with open(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "exact_pow.json")) as f:
    CASES = json.load(f)["cases"]


def _number(value):
    return float(value) if isinstance(value, str) else value  # "nan", "inf", "-inf"


def _bits(values, dtype):
    """Each value's bit pattern (float32's, or float64's, which hold 16-bit floats exactly), every NaN
    alike (PyTorch's NaNs differ in sign)."""
    code = "<f" if dtype == "float32" else "<d"
    return [b"nan" if math.isnan(v) else struct.pack(code, v) for v in values]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["name"])
def test_pow_is_pytorchs_every_bit(case):
    dtype = case["input"]["dtype"]
    x = ember.tensor([_number(v) for v in case["input"]["data"]], dtype=getattr(ember, dtype))
    e = _number(case["exponent"])
    for result, expected in ((x.pow(e), case["output"]), (x[:15].pow(e), case["first_15"])):
        assert _bits(result.tolist(), dtype) == _bits([_number(v) for v in expected["data"]], dtype)
