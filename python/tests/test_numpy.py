"""NumPy interop: t.numpy() and ember.from_numpy share memory both ways, float64 arrays stay float64
(so the chapter's NumPy dtype error reproduces), and refusals have torch's texts."""
import pytest

from conftest import SKIPPED

np = pytest.importorskip("numpy", reason=f"{SKIPPED} python3-numpy is not installed")
import ember as torch  # noqa: E402


def test_numpy_shares_the_tensors_memory():
    t = torch.arange(6.).reshape(2, 3)
    array = t.numpy()
    assert array.dtype == np.float32 and array.shape == (2, 3)
    array[0, 0] = 42
    assert t[0, 0].item() == 42
    t += 1
    assert array[1, 2] == 6.0
    transposed = t.t().numpy()
    assert transposed.strides == (4, 12) and transposed[2, 1] == 6.0
    del t
    assert array.sum() == 42 + 1 + 2 + 3 + 4 + 5 + 6  # the array keeps the bytes alive


def test_from_numpy_shares_the_arrays_memory_and_keeps_its_dtype():
    array = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = torch.from_numpy(array)
    assert t.dtype == torch.float64 and t.shape == (2, 3)
    array[1, 1] = -1
    assert t[1, 1].item() == -1
    t[0] = 7
    assert array[0].tolist() == [7.0, 7.0, 7.0]
    assert torch.from_numpy(array[:, ::2]).tolist() == [[7.0, 7.0], [3.0, 5.0]]
    assert torch.from_numpy(np.array([True, False])).dtype == torch.bool
    assert torch.from_numpy(np.array([1, 2], dtype=np.int64)).dtype == torch.int64


def test_float64_data_meets_a_float32_layer_with_pytorchs_dtype_error():
    layer = torch.nn.Linear(3, 2)
    data = torch.from_numpy(np.ones((4, 3)))
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype$"):
        layer(data)
    assert layer(data.float()).shape == (4, 2)


def test_tensor_copies_an_array_and_np_asarray_reads_a_tensor():
    array = np.array([[1.5, 2.5]])
    t = torch.tensor(array)
    array[0, 0] = 0
    assert t.tolist() == [[1.5, 2.5]] and t.dtype == torch.float64
    assert np.asarray(torch.ones(2)).tolist() == [1.0, 1.0]


def test_conversions_refuse_with_torchs_texts():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        torch.ones(2, requires_grad=True).numpy()
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        torch.from_numpy(np.arange(3.0)[::-1])
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        torch.from_numpy([1.0])
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        torch.from_numpy(np.zeros(2)).resize_(10)
