"""prof.export_memory_timeline from Python, torch's name and arguments: a small network under SGD with
momentum, its JSON in torch's [times, sizes] layout with exact bytes per category, the HTML page, and
the errors."""
import json

import pytest

import ember as torch
import ember.nn as nn
from ember.profiler import ProfilerActivity, profile

# The columns after the leading 0, in torch's plot order (_CATEGORY_TO_COLORS): PARAMETER,
# OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, None.
PARAMETER, OPTIMIZER_STATE, INPUT, ACTIVATION, GRADIENT = 1, 2, 3, 5, 6


def trained(steps):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        for _ in range(steps):
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
    return prof, model


def test_the_json_is_torchs_times_and_sizes_with_exact_bytes_per_category(tmp_path):
    prof, model = trained(steps=2)
    path = tmp_path / "memory.json"
    prof.export_memory_timeline(str(path), device="cpu")
    times, sizes = json.loads(path.read_text())
    assert len(times) == len(sizes) > 10
    assert times == sorted(times) and all(isinstance(t, int) for t in times)
    assert all(len(row) == 9 and row[0] == 0 for row in sizes)
    parameter_bytes = sum(p.numel() * 4 for p in model.parameters())
    assert parameter_bytes == (16 * 32 + 32 + 32 * 4 + 4) * 4
    last = sizes[-1]
    assert last[PARAMETER] == parameter_bytes
    assert last[GRADIENT] == parameter_bytes  # each .grad, kept by zero_grad (set_to_none=False)
    assert last[OPTIMIZER_STATE] == parameter_bytes  # each momentum buffer
    assert last[INPUT] == (8 * 16 + 8 * 4) * 4  # x and y, made before the profile
    assert last[ACTIVATION] == 0  # backward freed what the graphs saved
    assert max(row[ACTIVATION] for row in sizes) > 0


def test_the_default_device_is_the_cpu_without_a_gpu_and_html_is_one_page(tmp_path):
    prof, _ = trained(steps=1)
    if torch.cuda.is_available():
        pytest.skip("with a GPU the default device is cuda:0, as torch's")
    path = tmp_path / "memory.html"
    prof.export_memory_timeline(str(path))
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    assert "Memory timeline (cpu)" in page


def test_export_memory_timeline_needs_profile_memory_and_a_known_suffix(tmp_path):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.ones(4).sum()
    with pytest.raises(ValueError, match=r"^profile_memory=True required for memory profiling\.$"):
        prof.export_memory_timeline(str(tmp_path / "memory.json"))
    prof, _ = trained(steps=1)
    with pytest.raises(RuntimeError, match="cannot tell what to write from the name"):
        prof.export_memory_timeline(str(tmp_path / "memory.txt"), device="cpu")
