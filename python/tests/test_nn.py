"""ember.nn from Python: the C++ modules, a Module subclassed in Python, registration by attribute
assignment (and the chapter's pitfall of a module kept where registration cannot see it), repr as
PyTorch's, state_dict and load_state_dict, and a small training loop with SGD whose loss falls."""
import gc
import json
import os

import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

# PyTorch 1.13's answers for the module contract (tools/fixtures/nn_modules.py).
with open(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "nn_modules.json")) as f:
    NN_MODULES = json.load(f)


class TwoLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 8)
        self.second = nn.Linear(8, 2)
        self.scale = nn.Parameter(torch.ones(1))
        self.hidden = [nn.Linear(8, 8)]  # a plain list: not registered, as in PyTorch

    def forward(self, x):
        return self.second(F.relu(self.first(x))) * self.scale


def test_assigned_modules_and_parameters_are_registered_and_a_list_is_not():
    net = TwoLayers()
    names = [name for name, _ in net.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias", "second.weight", "second.bias"]
    assert len(net.parameters()) == 5
    assert isinstance(net.scale, nn.Parameter) and net.scale.requires_grad
    assert net.parameters()[0].is_alias_of(net.scale)
    assert [type(child).__name__ for child in net.children()] == ["Linear", "Linear"]
    net.eval()
    assert not net.first.training and net.hidden[0].training  # eval() does not reach the list


def test_a_registered_buffer_is_an_attribute_that_to_converts():
    net = TwoLayers()
    net.register_buffer("running_mean", torch.zeros(3))
    assert net.running_mean.tolist() == [0.0, 0.0, 0.0] and len(net.buffers()) == 1
    net.to(torch.float64)
    assert net.running_mean.dtype == torch.float64


def test_a_parameter_assigned_again_replaces_the_registered_one():
    net = TwoLayers()
    replacement = nn.Parameter(torch.zeros(1))
    net.scale = replacement
    assert net.scale is replacement and net.parameters()[0] is replacement
    assert len(net.parameters()) == 5


def test_a_python_module_works_inside_a_cpp_sequential_after_its_name_is_gone():
    model = nn.Sequential(TwoLayers(), nn.ReLU())
    gc.collect()
    out = model(torch.randn(3, 4))
    assert out.shape == (3, 2) and out.grad_fn is not None
    assert len(model) == 2 and isinstance(model[0], TwoLayers) and isinstance(model[-1], nn.ReLU)


def test_modules_print_as_pytorch_prints_them():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.5), nn.LayerNorm(3))
    assert repr(model) == ("Sequential(\n"
                           "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
                           "  (1): ReLU()\n"
                           "  (2): Dropout(p=0.5, inplace=False)\n"
                           "  (3): LayerNorm((3,), eps=1e-05, elementwise_affine=True)\n"
                           ")")
    assert repr(nn.Linear(2, 3, bias=False)) == "Linear(in_features=2, out_features=3, bias=False)"
    assert repr(nn.Parameter(torch.zeros(2))) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"


def test_dropout_differs_between_train_and_eval_the_chapters_second_pitfall():
    torch.manual_seed(0)  # the chapter's seed: its two masks differ (unseeded, 1 run in 256 draws the same masks)
    net = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    z = torch.randn(2, 4)
    assert net.train() is net
    assert not torch.allclose(net(z), net(z))
    net.eval()
    assert torch.allclose(net(z), net(z))


def test_manual_seed_gives_the_same_weights_every_time():
    torch.manual_seed(0)
    first = nn.Linear(3, 2).weight.tolist()
    torch.manual_seed(0)
    assert nn.Linear(3, 2).weight.tolist() == first


def test_a_small_training_loop_with_sgd_lowers_the_loss():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(64, 2)
    y = (x[:, 0] * 2 - x[:, 1]).unsqueeze(1)
    losses = []
    for _ in range(60):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]



def test_grad_scaler_steps_any_optimizer():
    for make in (lambda p: torch.optim.SGD(p, lr=0.1), torch.optim.Adam, torch.optim.AdamW):
        weight = torch.ones(2, requires_grad=True)
        optimizer = make([weight])
        scaler = torch.cuda.amp.GradScaler(init_scale=4.0)
        scaler.scale((weight * 3).sum()).backward()
        assert weight.grad.tolist() == [12.0, 12.0]
        assert scaler.step(optimizer) is None  # as torch's
        assert weight.grad.tolist() == [3.0, 3.0]  # unscaled before the step
        assert weight.tolist()[0] < 1.0

def test_module_to_casts_every_registered_parameter_in_place():
    net = TwoLayers()
    weight = net.first.weight
    assert net.to(torch.float64) is net
    assert weight.dtype == torch.float64 and net.scale.dtype == torch.float64
    assert net.hidden[0].weight.dtype == torch.float32  # the unregistered one stays


def test_functional_losses_take_pytorchs_keywords():
    logits = torch.tensor([[2.0, 0.5, -1.0]])
    target = torch.tensor([0])
    assert F.cross_entropy(logits, target).item() == pytest.approx(0.2413, abs=1e-4)
    assert F.mse_loss(torch.zeros(2), torch.ones(2), reduction="sum").item() == 2.0
    with pytest.raises(ValueError, match="mean_all is not a valid value for reduction"):
        F.mse_loss(torch.zeros(2), torch.ones(2), reduction="mean_all")


class StateNet(nn.Module):  # tools/fixtures/nn_modules.py's StateNet, written with ember
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.LayerNorm(2))
        self.register_buffer("steps", torch.zeros(1))
        self.scale = nn.Parameter(torch.ones(1))


STATE_DICT = NN_MODULES["state_dict"]


def test_state_dict_lists_each_modules_parameters_then_buffers_then_its_childrens_as_pytorch():
    net = StateNet()
    state = net.state_dict()
    assert list(state.keys()) == STATE_DICT["keys"]
    assert not state["fc.weight"].requires_grad and net.state_dict(keep_vars=True)["fc.weight"].requires_grad
    assert [name for name, _ in net.named_parameters(prefix="net", recurse=False)] == STATE_DICT["own_named_parameters"]
    assert [name for name, _ in net.named_buffers()] == STATE_DICT["named_buffers"]
    assert len(list(net.parameters(recurse=False))) == STATE_DICT["own_parameter_count"]


def test_load_state_dict_copies_the_values_and_reports_keys_and_shapes_as_pytorch():
    net, other = StateNet(), StateNet()
    state = net.state_dict()
    assert repr(other.load_state_dict(state)) == STATE_DICT["loaded"]
    assert torch.equal(other.fc.weight, net.fc.weight) and torch.equal(other.seq[2].bias, net.seq[2].bias)
    del state["fc.bias"]
    state["extra"] = torch.ones(1)
    result = other.load_state_dict(state, strict=False)
    assert [repr(result), result.missing_keys, result.unexpected_keys] == STATE_DICT["not_strict"]
    with pytest.raises(RuntimeError) as strict:
        other.load_state_dict(state)
    assert str(strict.value) == STATE_DICT["strict_error"]
    wrong = net.state_dict()
    wrong["fc.weight"] = torch.ones(2, 2)
    with pytest.raises(RuntimeError) as mismatch:
        other.load_state_dict(wrong)
    assert str(mismatch.value) == STATE_DICT["size_mismatch_error"]


SEQUENTIAL = NN_MODULES["sequential"]


def test_a_sequential_slices_adds_and_extends_as_pytorchs():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    for key, made in (("slice", s[1:]), ("reversed", s[::-1]), ("added", s + nn.Sequential(nn.ReLU()))):
        assert [name for name, _ in made.named_children()] == SEQUENTIAL[key]["names"]
        assert repr(made) == SEQUENTIAL[key]["repr"]
    assert s[1:][0] is s[1] and s[1:](torch.ones(1, 3)).shape == (1, 1)  # the same modules, callable
    assert len(nn.Sequential(nn.ReLU()).extend(s)) == SEQUENTIAL["extended_len"]
    with pytest.raises(ValueError) as refused:
        s + 1
    assert str(refused.value) == SEQUENTIAL["add_error"]


REGISTRATION = NN_MODULES["registration"]


class RegisteringNet(nn.Module):  # tools/fixtures/nn_modules.py's, written with ember
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.foo = 1


@pytest.mark.parametrize("refusal", REGISTRATION["refusals"], ids=lambda refusal: refusal["code"])
def test_registering_a_bad_name_or_value_raises_pytorchs_exception(refusal):
    m = RegisteringNet()  # noqa: F841 - the fixture's code names it
    with pytest.raises(Exception) as raised:
        eval(refusal["code"])
    assert type(raised.value).__name__ == refusal["type"]
    assert str(raised.value) == refusal["message"]


def test_named_modules_apply_and_requires_grad_walk_the_tree_as_pytorch():
    m = RegisteringNet()
    m.seq = nn.Sequential(nn.ReLU(), nn.Linear(2, 1))
    assert [name for name, _ in m.named_modules()] == REGISTRATION["named_modules"]
    assert [name for name, _ in m.named_modules(prefix="net")] == REGISTRATION["named_modules_prefixed"]
    assert len(list(m.modules())) == len(REGISTRATION["named_modules"])
    seen = []
    assert m.apply(lambda module: seen.append(type(module).__name__)) is m
    assert seen == REGISTRATION["apply_order"]
    assert [p.requires_grad for p in m.requires_grad_(False).parameters()] == REGISTRATION["requires_grad_"]


LOOKUP = NN_MODULES["lookup"]


class LookupNet(nn.Module):  # tools/fixtures/nn_modules.py's, written with ember
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.seq = nn.Sequential(nn.ReLU(), nn.Linear(2, 1))
        self.register_buffer("steps", torch.zeros(1))
        self.foo = 3


def test_get_submodule_parameter_and_buffer_follow_dotted_paths_as_pytorch():
    m = LookupNet()
    assert m.get_submodule("seq.1") is m.seq[1] and m.get_submodule("") is m
    assert m.get_parameter("seq.1.bias") is m.seq[1].bias and m.get_buffer("steps") is m.steps
    for refusal in LOOKUP["refusals"]:
        with pytest.raises(AttributeError) as raised:
            eval(refusal["code"])
        assert str(raised.value) == refusal["message"], refusal["code"]


def test_float_double_half_and_bfloat16_convert_a_modules_floating_tensors():
    m = LookupNet()
    dtypes = []
    for convert in ("double", "float", "bfloat16", "half"):
        assert getattr(m, convert)() is m
        dtypes.append([str(m.fc.weight.dtype), str(m.steps.dtype)])
    assert dtypes == LOOKUP["dtypes"]
    assert m.cpu() is m
