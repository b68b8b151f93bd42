"""torch.optim's param_groups, state and state_dict from Python, against PyTorch 1.13's
(tests/fixtures/optim.json, tools/fixtures/optim.py): what print shows of an optimizer, its groups
and its state_dict; the fixture's runs replayed from PyTorch's gradients, with parameter groups and
learning rates changed in param_groups between steps, landing on PyTorch's parameters bit for bit,
also when a fresh optimizer loads the first one's state_dict after three steps."""
import json
import os

import pytest

import ember as torch

with open(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "optim.json")) as f:
    FIXTURE = json.load(f)
NAMES = ("W1", "b1", "W2", "b2")
OPTIMIZERS = {"SGD": torch.optim.SGD, "Adam": torch.optim.Adam, "AdamW": torch.optim.AdamW}


def tensor_of(spec, requires_grad=False):
    return torch.tensor(spec["data"], dtype=torch.float32).reshape(spec["shape"]).requires_grad_(requires_grad)


def torch_keywords(options):
    return {k: tuple(v) if k == "betas" else v for k, v in options.items()}


def make_optimizer(phase, p):
    options = torch_keywords(phase["options"])
    if "groups" not in phase:
        return OPTIMIZERS[phase["optimizer"]]([p[k] for k in NAMES], **options)
    groups = [dict(torch_keywords(group["options"]), params=[p[k] for k in group["params"]])
              for group in phase["groups"]]
    return OPTIMIZERS[phase["optimizer"]](groups, **options)


def replay(run, interrupted):
    p = {k: tensor_of(FIXTURE[k], requires_grad=True) for k in NAMES}
    for phase in run["phases"]:
        optimizer = make_optimizer(phase, p)
        for i, step in enumerate(phase["steps"]):
            if str(i) in phase.get("lr_changes", {}):
                for group in optimizer.param_groups:
                    group["lr"] = phase["lr_changes"][str(i)]
            if interrupted and i == 3:
                saved = optimizer.state_dict()
                optimizer = make_optimizer(phase, p)
                optimizer.load_state_dict(saved)
            optimizer.zero_grad()
            for k in NAMES:
                p[k].grad = tensor_of(step["grads"][k])
            optimizer.step()
            for k in NAMES:
                assert p[k].tolist() == tensor_of(step["params"][k]).tolist(), (i, k)


@pytest.mark.parametrize("interrupted", [False, True], ids=["uninterrupted", "state_dict_after_three_steps"])
@pytest.mark.parametrize("run", FIXTURE["runs"], ids=lambda run: run["name"])
def test_a_run_from_pytorchs_gradients_lands_on_its_parameters(run, interrupted):
    replay(run, interrupted)


def one_step(name):
    w = torch.ones(2, requires_grad=True)
    optimizer = {"SGD": lambda: torch.optim.SGD([w], lr=0.1, momentum=0.9),
                 "Adam": lambda: torch.optim.Adam([w], amsgrad=True), "AdamW": lambda: torch.optim.AdamW([w])}[name]()
    (w * w).sum().backward()
    optimizer.step()
    return optimizer


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_an_optimizer_its_groups_and_its_state_dict_print_as_pytorchs(name):
    optimizer, printed = one_step(name), FIXTURE["printed"][name]
    assert repr(optimizer.param_groups) == printed["param_groups"]
    assert repr(optimizer) == printed["repr"]
    assert repr(optimizer.state_dict()) == printed["state_dict"]


def test_sgd_without_momentum_keeps_none_for_each_parameter_that_stepped():
    w, v = torch.ones(2, requires_grad=True), torch.ones(1, requires_grad=True)
    optimizer = torch.optim.SGD([w, v], lr=0.1)
    (w * w).sum().backward()
    optimizer.step()
    assert repr(optimizer.state_dict()) == FIXTURE["printed"]["sgd_without_momentum"]


def test_state_is_keyed_by_the_parameter_and_holds_the_optimizers_tensors():
    optimizer = one_step("Adam")
    (w,) = optimizer.param_groups[0]["params"]
    assert list(optimizer.state[w]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert optimizer.state[w]["exp_avg"] is optimizer.state_dict()["state"][0]["exp_avg"]
    assert optimizer.state[torch.ones(1)] == {}  # torch's defaultdict(dict)


def test_add_param_group_fills_in_the_defaults_and_the_group_steps_with_its_own():
    w, v = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    optimizer.add_param_group({"params": v, "lr": 1.0})
    assert [group["lr"] for group in optimizer.param_groups] == [0.1, 1.0]
    assert optimizer.param_groups[1]["momentum"] == 0.9 and optimizer.param_groups[1]["params"] == [v]
    (w.sum() + v.sum()).backward()
    optimizer.step()
    assert w.tolist() == pytest.approx([0.9, 0.9]) and v.tolist() == [0.0, 0.0]


def test_a_loaded_state_is_a_copy_and_the_loaded_groups_keep_their_parameters():
    first = one_step("SGD")
    saved = first.state_dict()
    w = torch.ones(2, requires_grad=True)
    second = torch.optim.SGD([w], lr=0.5)
    second.load_state_dict(saved)
    assert second.param_groups[0]["params"] == [w] and second.param_groups[0]["lr"] == 0.1
    assert second.param_groups[0]["momentum"] == 0.9
    buffer = second.state[w]["momentum_buffer"]
    assert buffer is not saved["state"][0]["momentum_buffer"]
    assert buffer.tolist() == saved["state"][0]["momentum_buffer"].tolist()


def test_zero_grad_keeps_zeroed_gradients_unless_told_to_drop_them():
    optimizer = one_step("SGD")
    (w,) = optimizer.param_groups[0]["params"]
    optimizer.zero_grad()  # set_to_none=False in 1.13
    assert w.grad.tolist() == [0.0, 0.0]
    optimizer.zero_grad(set_to_none=True)
    assert w.grad is None


def test_step_returns_the_closures_loss_computed_with_grad_enabled():
    w = torch.ones(2, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)

    def closure():
        optimizer.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with torch.no_grad():
        loss = optimizer.step(closure)
    assert loss.item() == 2.0 and w.tolist() == pytest.approx([0.8, 0.8])


def test_an_option_ember_has_no_code_for_is_refused():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="ember's optimizers have no differentiable=True"):
        torch.optim.SGD([w], lr=0.1, differentiable=True)
