"""The profiler by PyTorch 1.13's own names from Python: torch.autograd.profiler's profile,
record_function and emit_nvtx, torch.profiler's schedule, step() and on_trace_ready,
supported_activities and kineto_available, and the events the factories record inside them
(tests/fixtures/profiler.json "trees", tools/fixtures/profiler.py; the C++ side of the trees is
tests/test_profiler_trees.cpp)."""
import collections
import json
import os

import pytest

import ember as torch

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "profiler.json")
with open(FIXTURE) as f:
    TREES = json.load(f)["trees"]

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
