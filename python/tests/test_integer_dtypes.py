"""uint8, int8, int16 and int32 through the Python door: each case of
tests/fixtures/integer_dtypes.json (PyTorch 1.13's promotion, wrapping ops, floor division and
remainder, casts, printing, the default dtype) runs its own Python code with `torch` being ember
and must give PyTorch's values exactly; the refused calls PyTorch's exception types and texts. The
C++ door is tests/test_integer_dtypes.cpp."""
import json
import os

import numpy
import pytest

import ember

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "integer_dtypes.json")
with open(FIXTURE) as f:
    FIXTURES = json.load(f)
torch = ember  # the fixture's code names it


def make(spec):
    values = [float(v) if isinstance(v, str) else v for v in spec["data"]]
    return ember.tensor(values, dtype=getattr(ember, spec["dtype"])).reshape(spec["shape"])


def assert_same(t, spec):
    assert str(t.dtype) == "torch." + spec["dtype"]
    assert list(t.shape) == spec["shape"]
    expected = [float(v) if isinstance(v, str) else v for v in spec["data"]]
    got = t.reshape(-1).tolist()
    assert all(g == e or (g != g and e != e) for g, e in zip(got, expected)), (got, expected)


def test_promote_types_is_pytorchs_lattice():
    for a, b, result in FIXTURES["promote_types"]:
        assert ember.promote_types(getattr(ember, a), getattr(ember, b)) == getattr(ember, result), (a, b)


@pytest.mark.parametrize("case", FIXTURES["result_type"], ids=lambda case: case["code"])
def test_result_type(case):
    assert str(eval(case["code"])) == "torch." + case["result"]


@pytest.mark.parametrize("case", FIXTURES["ops"], ids=lambda case: case["dtype"] + "-" + case["name"])
def test_integer_ops_give_pytorchs_values(case):
    x, y = make(case["x"]), make(case["y"])  # noqa: F841 - names the code uses
    assert_same(eval(case["code"]), case["output"])


@pytest.mark.parametrize("case", FIXTURES["casts"], ids=lambda case: case["from"] + "-" + case["to"])
def test_casts_truncate_and_keep_the_low_bits(case):
    assert_same(make(case["input"]).to(getattr(ember, case["to"])), case["output"])


@pytest.mark.parametrize("case", FIXTURES["reprs"], ids=lambda case: case["code"])
def test_integer_tensors_print_as_pytorchs(case):
    assert repr(eval(case["code"])) == case["repr"]


def test_the_default_dtype_changes_float_factories_and_division():
    assert ember.get_default_dtype() == ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        made = [(case, eval(case["code"])) for case in FIXTURES["default_dtype"]]
        reprs = [repr(t) for _, t in made]
    finally:
        ember.set_default_dtype(ember.float32)
    for (case, t), text in zip(made, reprs):
        assert str(t.dtype) == "torch." + case["dtype"], case["code"]
        assert text == case["repr"], case["code"]


@pytest.mark.parametrize("case", FIXTURES["errors"], ids=lambda case: case["name"])
def test_refusals_raise_pytorchs_types_and_texts(case):
    with pytest.raises(Exception) as raised:
        eval(case["code"])
    assert type(raised.value).__name__ == case["type"]
    assert str(raised.value) == case["message"]


def test_names_and_numpy_round_trip():
    assert (ember.int, ember.short, ember.long) == (ember.int32, ember.int16, ember.int64)
    assert not ember.uint8.is_signed and ember.int8.is_signed and not ember.int32.is_floating_point
    t = ember.tensor([1, -2], dtype=ember.int16)
    assert t.int().dtype == ember.int32 and t.byte().tolist() == [1, 254] and t.char().dtype == ember.int8
    assert t.short().dtype == ember.int16 and t[1].item() == -2
    for dtype in ["uint8", "int8", "int16", "int32"]:
        array = numpy.arange(3, dtype=dtype)
        assert ember.from_numpy(array).dtype == getattr(ember, dtype)
        assert ember.from_numpy(array).numpy().dtype == array.dtype


@pytest.mark.parametrize("case", FIXTURES["random"], ids=lambda case: case["code"])
def test_random_draws_pytorchs_stream(case):
    ember.manual_seed(0)
    assert_same(eval(case["code"]), case["output"])


def test_random_records_one_node_per_form():
    leaf = ember.zeros(3, requires_grad=True)
    nodes = [leaf.clone().random_(0, 5).grad_fn.name(), leaf.clone().random_(5).grad_fn.name(),
             leaf.clone().random_().grad_fn.name()]
    assert nodes == FIXTURES["random_grad_fn"]


@pytest.mark.parametrize("case", FIXTURES["view_dtype"], ids=lambda case: case["name"])
def test_view_dtype_reads_the_same_bytes(case):
    x = ember.arange(8.).reshape(2, 4).requires_grad_()
    out = eval(case["code"])
    assert_same(out, case["output"])
    assert list(out.stride()) == case["strides"] and out.storage_offset() == case["storage_offset"]
    assert out.requires_grad == case["requires_grad"] and out._is_view() == case["is_view"]
    assert (out.storage().data_ptr() == x.storage().data_ptr()) == case["shares_storage"]
