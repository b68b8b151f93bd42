"""ember.profiler from Python: the C++ profiler recording a `with` block, its rows and PyTorch's
table, ranges of one's own, and a chrome trace."""
import json

import ember as torch
import ember.nn as nn
from ember.profiler import ProfilerActivity, profile, record_function


def test_a_profile_lists_every_op_by_pytorchs_name_with_counts():
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    x = torch.randn(4, 8)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("my forward"):
            out = model(x)
        out.sum().backward()
    rows = {row.key: row for row in prof.key_averages()}
    assert rows["aten::addmm"].count == 2 and rows["aten::linear"].count == 2
    assert rows["my forward"].count == 1
    assert "autograd::engine::evaluate_function: AddmmBackward0" in rows
    assert all(row.self_cpu_time_total >= 0 and row.cpu_time_total >= row.self_cpu_time_total for row in rows.values())
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    assert "Self CPU %" in table and "# of Calls" in table
    assert len([line for line in table.splitlines() if line.startswith("aten::") or line.startswith("auto")]) <= 5


def test_with_flops_counts_a_matrix_product_as_pytorch_does(tmp_path):
    a, b = torch.randn(4, 8), torch.randn(8, 16)
    with profile(activities=[ProfilerActivity.CPU], with_flops=True) as prof:
        torch.mm(a, b)
    (mm,) = [row for row in prof.key_averages() if row.key == "aten::mm"]
    assert mm.flops == 2 * 4 * 8 * 16
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    with open(tmp_path / "trace.json") as f:
        names = [event["name"] for event in json.load(f)["traceEvents"]]
    assert "aten::mm" in names


def test_no_op_is_recorded_outside_the_block():
    with profile() as prof:
        pass
    torch.ones(2) + 1
    assert len(prof.key_averages()) == 0


def test_the_machine_load_clock_measures_this_process():
    clock = torch.profiler.scheduler_clock()
    torch.randn(100, 100) @ torch.randn(100, 100)
    load = torch.profiler.machine_load_since(clock)
    assert load.wall_seconds > 0 and 0 <= load.waiting_fraction() <= 1
    assert "load average" in str(load)
