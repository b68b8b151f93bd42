"""ember.Tensor from Python: the C++ tensor's views, version counter, operators, conversions and
printing, with PyTorch's texts (checked against PyTorch itself in test_torch_differential.py)."""
import warnings

import pytest

import ember as torch


def test_a_row_is_a_view_and_row_plus_equals_changes_the_tensor_and_stays_the_same_object():
    t = torch.arange(6.).reshape(2, 3)
    row = t[0]
    same = row
    row += 100
    assert row is same
    assert t[0].tolist() == [100.0, 101.0, 102.0]
    assert t._version == 1 and row._version == 1
    assert row._is_view() and row._base is not None and row.is_alias_of(t)


def test_slices_none_and_ellipsis_index_as_views():
    t = torch.arange(24.).reshape(2, 3, 4)
    assert t[1, 2].tolist() == [20.0, 21.0, 22.0, 23.0]
    assert t[0, 1:, ::2].tolist() == [[4.0, 6.0], [8.0, 10.0]]
    assert t[..., -1].shape == torch.Size([2, 3])
    assert t[None, 0, None].shape == (1, 1, 3, 4)
    assert t[:, 1].is_alias_of(t)
    t[:, 0] = 0
    t[1, 1:, 0] = torch.tensor([7.0, 8.0])
    assert t[:, :, 0].tolist() == [[0.0, 4.0, 8.0], [0.0, 7.0, 8.0]]
    assert t[:, 0].sum().item() == 0


def test_indexing_mistakes_raise_pythons_errors_with_pytorchs_texts():
    t = torch.zeros(2, 3)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 1 with size 3$"):
        t[:, 5]
    with pytest.raises(IndexError, match=r"^index 2 is out of bounds for dimension 0 with size 2$"):
        t[2]
    with pytest.raises(IndexError, match=r"^too many indices for tensor of dimension 2$"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match=r"^invalid index of a 0-dim tensor"):
        torch.tensor(1.0)[0]
    with pytest.raises(ValueError, match=r"^step must be greater than zero$"):
        t[::-1]
    assert [row.tolist() for row in t] == [[0.0, 0.0, 0.0]] * 2  # iteration stops at the end
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(torch.tensor(2.0))


def test_the_chapters_shape_error_is_a_runtime_error_with_pytorchs_text():
    with pytest.raises(RuntimeError) as error:
        torch.randn(4, 8) @ torch.randn(16, 2)
    assert str(error.value) == "mat1 and mat2 shapes cannot be multiplied (4x8 and 16x2)"


def test_numbers_keep_pytorchs_type_promotion_int_float_and_bool():
    i = torch.arange(3)
    assert i.dtype == torch.int64
    assert (i + 2).dtype == torch.int64
    assert (i + 2.5).dtype == torch.float32
    assert (i * True).dtype == torch.int64
    assert (2 - i).tolist() == [2, 1, 0]
    assert (1 / torch.tensor([2.0, 4.0])).tolist() == [0.5, 0.25]
    assert (torch.ones(2, dtype=torch.float64) * 3).dtype == torch.float64
    assert (torch.tensor([1.0, 2.0]) > 1).tolist() == [False, True]
    assert (1 < torch.tensor([1.0, 2.0])).tolist() == [False, True]
    assert (torch.tensor([2.0]) ** 2).item() == 4.0


def test_an_operand_of_another_type_lets_python_raise_its_type_error():
    with pytest.raises(TypeError):
        torch.ones(2) + "a"
    assert (torch.ones(1) == None) is False  # noqa: E711 (Python's fallback, as with torch)


def test_tensor_infers_pytorchs_dtypes_and_shapes_from_nested_lists():
    assert torch.tensor([[1.0, 2.0], [3.0, 4.0]]).dtype == torch.float32
    assert torch.tensor([1, 2]).dtype == torch.int64
    assert torch.tensor([True, False]).dtype == torch.bool
    assert torch.tensor([True, 2]).dtype == torch.int64
    assert torch.tensor(3.5).shape == torch.Size([])
    assert torch.tensor([]).shape == (0,)
    assert torch.tensor([2**62]).item() == 2**62
    assert torch.tensor([1, 2], dtype=torch.float64).dtype == torch.float64
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        torch.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="Could not infer dtype of str"):
        torch.tensor(["a"])


def test_values_leave_the_engine_as_python_numbers_and_lists():
    t = torch.tensor([[1.5, 2.0]])
    assert t.tolist() == [[1.5, 2.0]]
    assert torch.tensor(3).item() == 3 and isinstance(torch.tensor(3).item(), int)
    assert torch.tensor(True).item() is True
    assert float(torch.tensor([2.5])) == 2.5 and int(torch.tensor(2.7)) == 2
    assert bool(torch.tensor([1.0])) and not bool(torch.tensor(0))
    assert f"{torch.tensor(0.5):.2f}" == "0.50"
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        t.item()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(t)


def test_repr_and_str_print_as_pytorch_prints():
    assert repr(torch.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    w = torch.ones(2, requires_grad=True)
    assert str(w) == "tensor([1., 1.], requires_grad=True)"
    assert repr(w * 2) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
    assert repr(torch.arange(3, dtype=torch.float64)) == "tensor([0., 1., 2.], dtype=torch.float64)"
    assert repr(torch.float32) == "torch.float32" and str(torch.bfloat16) == "torch.bfloat16"
    assert repr(torch.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert repr(torch.device("cpu")) == "device(type='cpu')" and str(torch.zeros(1).device) == "cpu"


def test_sizes_come_as_varargs_tuples_or_lists():
    assert torch.zeros(2, 3).shape == torch.zeros((2, 3)).shape == torch.zeros([2, 3]).shape == (2, 3)
    assert torch.ones(()).dim() == 0
    t = torch.arange(12.)
    assert t.view(3, 4).shape == t.reshape((3, 4)).shape == t.view(-1, 4).shape == (3, 4)
    assert t.view(3, 4).size() == (3, 4) and t.view(3, 4).size(1) == 4 and len(t.view(3, 4)) == 3
    assert t.view(2, 6).permute(1, 0).shape == (6, 2)
    assert t.view(2, 6).sum(dim=1).tolist() == [15.0, 51.0]
    assert t.view(2, 6).sum((0, 1)).item() == 66.0
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' must be tuple of ints"):
        torch.zeros(2, 1.5)


def test_tensors_are_hashable_by_identity_and_ember_warnings_are_user_warnings():
    a, b = torch.zeros(1), torch.zeros(1)
    assert len({a, b, a}) == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = torch.zeros(3)
        assert torch.tensor(out).shape == (3,)
    assert [w.category for w in caught] == [UserWarning]
    assert str(caught[0].message).startswith("To copy construct from a tensor")


def test_a_warning_turned_into_an_error_propagates_out_of_the_op():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="To copy construct"):
            torch.tensor(torch.zeros(1))


def test_dtype_and_device_conversions():
    t = torch.arange(3)
    assert t.float().dtype == torch.float32 and t.double().dtype == torch.float64
    assert t.to(torch.bfloat16).dtype == torch.bfloat16 and t.to("cpu").device == torch.device("cpu")
    assert t.to(torch.zeros(1, dtype=torch.float16)).dtype == torch.float16
    assert torch.float32.is_floating_point and not torch.int64.is_floating_point
    assert torch.float is torch.float32 and torch.long is torch.int64
