"""The profiler by PyTorch 1.13's own names from Python: torch.autograd.profiler's profile,
record_function and emit_nvtx, torch.profiler's schedule, step() and on_trace_ready,
supported_activities and kineto_available, and the events the factories record inside them
(tests/fixtures/profiler.json "trees", tools/fixtures/profiler.py; the C++ side of the trees is
tests/test_profiler_trees.cpp)."""
import collections
import json
import os
import warnings

import pytest

import ember as torch

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "profiler.json")
with open(FIXTURE) as f:
    PROFILES = json.load(f)
TREES = PROFILES["trees"]
SCHEDULED = PROFILES["scheduled"]

FACTORIES = {
    "rand": lambda x: torch.rand(4, 6), "randn": lambda x: torch.randn(4, 6), "zeros": lambda x: torch.zeros(4, 6),
    "ones": lambda x: torch.ones(4, 6), "full": lambda x: torch.full((4, 6), 2.5),
    "rand_like": lambda x: torch.rand_like(x), "randn_like": lambda x: torch.randn_like(x),
    "zeros_like": lambda x: torch.zeros_like(x), "ones_like": lambda x: torch.ones_like(x),
    "full_like": lambda x: torch.full_like(x, 2.5),
}


def counts_in(tree):
    counts = collections.Counter()
    for event in tree:
        counts[event["name"]] += 1
        counts.update(counts_in(event["children"]))
    return counts


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_factory_records_the_events_pytorch_records(name):
    x = torch.randn(4, 6)
    with torch.profiler.profile() as prof:
        FACTORIES[name](x)
    assert {row.key: row.count for row in prof.key_averages()} == dict(counts_in(TREES[name]["tree"]))


def test_a_schedule_names_the_action_of_each_step_as_pytorchs():
    schedule_fn = torch.profiler.schedule(**SCHEDULED["schedule"])
    assert [schedule_fn(step).name for step in range(16)] == SCHEDULED["actions"]


def test_a_scheduled_profile_records_only_its_active_steps_and_fires_on_trace_ready_after_each_cycle():
    fired = []

    def on_trace_ready(prof):
        rows = {row.key: row.count for row in prof.key_averages()}
        fired.append({"step_num": prof.step_num, "mul_count": rows.get("aten::mul", 0),
                      "steps": [[key, count] for key, count in rows.items() if key.startswith("ProfilerStep")]})

    x = torch.ones(2)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=torch.profiler.schedule(**SCHEDULED["schedule"]),
                                on_trace_ready=on_trace_ready) as prof:
        for _ in range(SCHEDULED["steps"]):
            x * 2
            prof.step()
    assert fired == SCHEDULED["fired"]


def test_a_schedule_without_warmup_warns_as_pytorch_does():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.profiler.schedule(wait=1, warmup=0, active=1)
    assert [str(w.message) for w in caught] == ["Profiler won't be using warmup, this can skew profiler results"]


def test_a_schedule_without_active_steps_is_refused_with_pytorchs_assertion():
    with pytest.raises(AssertionError, match="^Invalid profiler schedule arguments$"):
        torch.profiler.schedule(wait=1, warmup=1, active=0)


def test_key_averages_grouped_by_input_shape_has_a_row_per_shape():
    a, b, c = torch.ones(2, 3), torch.ones(3, 4), torch.ones(4, 3)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        torch.mm(a, b)
        torch.mm(c, a.t())
        torch.mm(a, b)
    rows = [[row.key, str(row.input_shapes), row.count] for row in prof.key_averages(group_by_input_shape=True)
            if row.key == "aten::mm"]
    assert rows == PROFILES["grouped_by_input_shape"]


def test_supported_activities_are_the_cpu_and_the_gpu_where_there_is_one():
    expected = {torch.profiler.ProfilerActivity.CPU} | (
        {torch.profiler.ProfilerActivity.CUDA} if torch.cuda.is_available() else set())
    assert torch.profiler.supported_activities() == expected


def test_kineto_is_not_available_as_ember_records_with_its_own_profiler():
    assert torch.profiler.kineto_available() is False and torch.autograd.kineto_available() is False


def test_the_autograd_profilers_profile_and_record_function_record_a_named_range():
    with torch.autograd.profiler.profile() as prof:
        with torch.autograd.profiler.record_function("my range", args="an argument"):
            torch.ones(2)
    rows = {row.key: row.count for row in prof.key_averages()}
    assert rows["my range"] == 1 and rows["aten::ones"] == 1


def test_emit_nvtx_disabled_does_nothing():
    with torch.autograd.profiler.emit_nvtx(enabled=False, record_shapes=True):
        assert torch.ones(2).sum().item() == 2


@pytest.mark.skipif(torch._C._cuda_is_built(), reason="with CUDA built, emit_nvtx runs")
def test_emit_nvtx_without_cuda_raises_pytorchs_assertion():
    with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
        with torch.autograd.profiler.emit_nvtx():
            pass
