"""The same small programs run through PyTorch 1.13 (Debian's python3-torch) and through ember,
each written once against a module `T` that is `torch` or `ember`: their values, gradients, dtypes,
shapes, printed texts, warnings and errors (type and text) must agree. Floating-point values agree
to a relative 1e-5 (a matrix product's last bits depend on the BLAS); everything else exactly.
The few differences ember has on purpose are listed in DIFFERENCES, each with why. Skipped, and
reported skipped, where torch is not installed."""
import math
import re
import warnings

import pytest

from conftest import SKIPPED

torch = pytest.importorskip("torch", reason=f"{SKIPPED} python3-torch is not installed")
import ember  # noqa: E402

PROGRAMS = {}


def program(function):
    PROGRAMS[function.__name__] = function
    return function


@program
def views_share_storage_and_the_version_counter(T):
    t = T.arange(6.).reshape(2, 3)
    row = t[0]
    row += 100
    column = t[:, 1]
    column.mul_(2)
    return t, t._version, row._is_view(), t[1:, ::2], t[None, 0, None].shape, t[..., -1]


@program
def type_promotion_with_numbers_and_tensors(T):
    i = T.arange(4)
    return [i + 2, i + 2.5, i * True, 2 - i, i / 2, i > 1, 1 < i, T.ones(2, dtype=T.float64) + T.ones(2),
            T.tensor([1.0, 4.0]) ** 2, 1 / T.tensor([2.0, 4.0]), -T.tensor([1, -2]), abs(T.tensor([-1.5, 2.0]))]


@program
def tensor_from_nested_lists(T):
    return [T.tensor([[1.0, 2.0], [3.0, 4.0]]), T.tensor([1, 2]), T.tensor([True, False]), T.tensor([True, 2]),
            T.tensor(3.5), T.tensor([]), T.tensor([1, 2], dtype=T.float64), T.tensor([2**62])]


@program
def autograd_of_a_small_expression(T):
    w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = ((w.exp() * x).sum() + (w / x).mean() - x.pow(2).sum()).tanh()
    y.backward()
    names = [y.grad_fn.name()] + [f.name() for f, _ in y.grad_fn.next_functions if f is not None]
    return y, w.grad, x.grad, names, w.is_leaf, y.is_leaf, y.requires_grad


@program
def a_seeded_mlp_forward_and_backward(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(8, 16), T.nn.ReLU(), T.nn.Linear(16, 4))
    x = T.randn(5, 8)
    target = T.tensor([0, 3, 1, 1, 2])
    loss = T.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    return loss, [p.grad for p in model.parameters()], [p.shape for p in model.parameters()], repr(model)


@program
def sgd_adam_and_adamw_step_as_pytorchs(T):
    parameters = []
    for make in (lambda p: T.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
                 lambda p: T.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True),
                 lambda p: T.optim.AdamW(p, lr=0.01, betas=(0.8, 0.99))):
        T.manual_seed(0)
        model = T.nn.Linear(4, 2)
        optimizer = make(model.parameters())
        x = T.randn(8, 4)
        for _ in range(3):
            optimizer.zero_grad()
            T.nn.functional.mse_loss(model(x), T.zeros(8, 2)).backward()
            optimizer.step()
        parameters.append(list(model.parameters()))
    return parameters


@program
def losses_and_normalisation_with_gradients(T):
    T.manual_seed(1)
    x = T.randn(3, 5, requires_grad=True)
    F = T.nn.functional
    outs = [F.softmax(x, 1), F.log_softmax(x, 0), F.mse_loss(x, T.ones(3, 5), reduction="sum"),
            F.nll_loss(F.log_softmax(x, 1), T.tensor([4, 0, 2])), F.layer_norm(x, (5,)), x.relu(), x.sigmoid()]
    sum(out.sum() for out in outs).backward()
    return outs, x.grad


@program
def indexing_gradients_flow_into_the_indexed_part(T):
    x = T.arange(12.).reshape(3, 4).requires_grad_()
    y = x[1:, ::2] * 2 + x[0, None]
    y.sum().backward()
    return y, x.grad, y.grad_fn.name()


@program
def dropout_train_and_eval_with_a_seed(T):
    T.manual_seed(0)
    net = T.nn.Sequential(T.nn.Linear(4, 4), T.nn.Dropout(0.5))
    z = T.randn(2, 4)
    trained = net(z)
    net.eval()
    return trained, net(z), T.allclose(net(z), net(z)), net.training


@program
def modes_and_what_their_results_are(T):
    layer = T.nn.Linear(4, 4)
    x = T.randn(2, 4)
    with T.no_grad():
        a = layer(x)
    with T.inference_mode():
        b = layer(x)
    with T.autocast("cpu", dtype=T.bfloat16):
        c = layer(x)
    return a.requires_grad, b.requires_grad, b.is_inference(), a.is_inference(), c.dtype, T.is_grad_enabled()


@program
def printing_of_tensors_and_their_metadata(T):
    w = T.ones(2, 3, requires_grad=True)
    return [repr(T.arange(6.).reshape(2, 3) / 3), str(w), repr(w.sum()), repr(T.arange(3, dtype=T.float64)),
            repr(T.tensor([1e-8, 1.0, 1e8])), repr(T.zeros(2, 3).shape), repr(T.bfloat16), str(T.int64),
            repr(T.nn.Parameter(T.zeros(2))), repr(T.tensor([True, False])), T.arange(4).tolist(),
            T.tensor(2.5).item(), repr(T.device("cpu"))]


@program
def the_chapters_shape_error(T):
    return T.randn(4, 8) @ T.randn(16, 2)


@program
def a_float64_input_to_a_float32_layer(T):
    return T.nn.Linear(3, 2)(T.ones(4, 3, dtype=T.float64))


@program
def inference_tensors_cannot_be_saved(T):
    with T.inference_mode():
        b = T.ones(2)
    return (b * T.ones(1, requires_grad=True)).sum().backward()


@program
def in_place_on_a_leaf_that_requires_grad(T):
    x = T.ones(2, requires_grad=True)
    x += 1


@program
def a_saved_tensor_changed_in_place(T):
    a = T.ones(3, requires_grad=True)
    b = a * 1
    c = (b * b).sum()
    b += 1
    c.backward()


@program
def assigning_a_value_of_the_wrong_shape(T):
    t = T.zeros(2, 3)
    t[0] = T.tensor([1.0, 2.0])


@program
def assigning_through_indices(T):
    t = T.zeros(2, 3, 4)
    t[:, 0] = 1
    t[1, 1:, 0] = T.tensor([7.0, 8.0])
    t[0, 2] = T.ones(1, 4) * 3
    t[..., -1] = T.tensor(9.0)
    return t, t._version


@program
def reshape_to_a_wrong_size(T):
    return T.arange(6).reshape(4)


@program
def broadcasting_mismatch(T):
    return T.ones(2, 3) + T.ones(3, 2)


@program
def index_out_of_range(T):
    return T.zeros(2, 3)[:, 5]


@program
def too_many_indices(T):
    return T.zeros(2)[0, 0]


@program
def a_negative_step(T):
    return T.zeros(3)[::-1]


@program
def item_of_two_elements(T):
    return T.zeros(2).item()


@program
def truth_value_of_two_elements(T):
    return bool(T.zeros(2))


@program
def an_integer_tensor_requiring_grad(T):
    return T.zeros(2, dtype=T.int64, requires_grad=True)


@program
def ragged_nested_lists(T):
    return T.tensor([[1, 2], [3]])


@program
def length_of_a_0d_tensor(T):
    return len(T.tensor(1.0))


@program
def warnings_ember_raises_as_python_warnings(T):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.tensor(T.zeros(1))
        y = T.ones(1, requires_grad=True) * 2
        y.grad
        T.nn.functional.mse_loss(T.zeros(2, 1), T.zeros(2))
    # torch's C++ warnings end with where they were raised in its sources; ember's have no such suffix.
    return [(w.category.__name__, re.sub(r" \(Triggered internally at .*\)$", "", str(w.message))) for w in caught]


# Differences on purpose, by program: what ember gives instead, and why.
DIFFERENCES = {
    # torch's Python getitem returns at::alias for t[...] alone; not used by any program above.
}


def describe(value, module):
    """A program's result as plain Python data, the same for torch's and ember's objects."""
    if isinstance(value, module.Tensor):
        return ("tensor", str(value.dtype), tuple(value.shape), value.detach().tolist())
    if isinstance(value, (list, tuple)):
        return [describe(v, module) for v in value]
    if isinstance(value, module.dtype):
        return ("dtype", str(value))
    return value


def run(function, module):
    try:
        return ("value", describe(function(module), module))
    except Exception as error:  # noqa: BLE001 (the error is the result)
        return ("error", type(error).__name__, str(error))


def assert_same(ours, theirs, where="result"):
    if isinstance(theirs, float) and isinstance(ours, float):
        assert (math.isnan(ours) and math.isnan(theirs)) or math.isclose(ours, theirs, rel_tol=1e-5, abs_tol=1e-6), (
            f"{where}: ember {ours!r}, torch {theirs!r}")
    elif isinstance(theirs, (list, tuple)) and isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs), f"{where}: ember {ours!r}, torch {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: ember {ours!r}, torch {theirs!r}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_ember_agrees_with_pytorch(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], ember)
    assert_same(ours, DIFFERENCES.get(name, theirs))


def test_the_programs_cover_values_and_errors():
    results = [run(function, torch)[0] for function in PROGRAMS.values()]
    assert results.count("value") >= 10 and results.count("error") >= 10
