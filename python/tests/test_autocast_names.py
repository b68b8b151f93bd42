"""Autocast's own names from Python (torch.is_autocast_cpu_enabled, torch.cpu.amp.autocast, ...):
what they answer inside and outside nested regions, and the warnings and errors of unsupported
dtypes, checked against PyTorch 1.13's answers in tests/fixtures/autocast.json ("names",
tools/fixtures/autocast.py; the C++ side is tests/test_autocast_names.cpp)."""
import json
import os
import warnings

import pytest

import ember as torch

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "autocast.json")
with open(FIXTURE) as f:
    NAMES = json.load(f)["names"]


def state():
    return [torch.is_autocast_enabled(), torch.is_autocast_cpu_enabled(), str(torch.get_autocast_cpu_dtype()),
            str(torch.get_autocast_gpu_dtype()), torch.is_autocast_cache_enabled()]


def error_text(call):
    with pytest.raises((RuntimeError, TypeError)) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()
    return f"{caught.type.__name__}: {caught.value}"


def warning_texts(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except RuntimeError:
            pass
    return [str(w.message) for w in caught]


def enter_cpu_float16():
    with torch.autocast("cpu", dtype=torch.float16):
        pass


def test_outside_any_region_autocast_is_off_and_the_cache_on():
    assert state() == NAMES["outside"]


def test_a_cpu_region_turns_cpu_autocast_on_and_leaves_gpu_autocast_off():
    with torch.autocast("cpu"):
        assert state() == NAMES["in_cpu"]


def test_an_inner_disabled_uncached_region_is_off_inside_and_restores_the_outer_state():
    with torch.autocast("cpu"):
        with torch.autocast("cpu", enabled=False, cache_enabled=False):
            assert state() == NAMES["in_inner_disabled_uncached"]
        assert state() == NAMES["after_inner"]
    assert state() == NAMES["after_outer"]


def test_torch_cpu_amp_autocast_is_a_bfloat16_cpu_region():
    with torch.cpu.amp.autocast():
        assert state() == NAMES["in_cpu_amp"]


def test_autocast_as_a_decorator_holds_a_region_around_each_call():
    @torch.autocast("cpu")
    def decorated():
        return state()

    assert decorated.__name__ == "decorated"
    assert decorated() == NAMES["in_decorated"]
    assert state() == NAMES["after_decorated"]


def test_the_nesting_count_is_what_increment_and_decrement_return():
    counts = [torch.autocast_increment_nesting(), torch.autocast_increment_nesting(),
              torch.autocast_decrement_nesting(), torch.autocast_decrement_nesting()]
    assert counts == NAMES["nesting_counts"]


def test_set_autocast_cpu_enabled_switches_the_ops_as_a_region_does():
    torch.set_autocast_cpu_enabled(True)
    try:
        assert torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.bfloat16
    finally:
        torch.set_autocast_cpu_enabled(False)
    assert torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.float32


def test_the_cache_enabled_argument_turns_the_weight_cache_off_for_the_region():
    weight = torch.ones(2, 2, requires_grad=True)
    with torch.autocast("cpu", cache_enabled=False):
        first, second = torch.mm(torch.ones(2, 2), weight), torch.mm(torch.ones(2, 2), weight)
        casts = {first.grad_fn.next_functions[1][0], second.grad_fn.next_functions[1][0]}
    assert len(casts) == 2


def test_a_float16_cpu_region_warns_then_fails_as_pytorch_does():
    assert warning_texts(enter_cpu_float16) == NAMES["cpu_float16_warnings"]
    assert error_text(enter_cpu_float16) == NAMES["cpu_float16_error"]
    assert state() == NAMES["after_cpu_float16_error"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="with a GPU there is nothing to warn about")
def test_a_cuda_region_without_a_gpu_warns_that_it_disables_itself():
    assert warning_texts(lambda: torch.autocast("cuda")) == NAMES["cuda_without_gpu_warnings"]


def test_torch_cuda_amp_autocast_is_a_float16_cuda_region():
    region = torch.cuda.amp.autocast(enabled=False)
    assert (region.device, region.fast_dtype) == ("cuda", torch.float16)


def test_an_unknown_device_type_is_refused_with_pytorchs_error():
    assert error_text(lambda: torch.autocast("xla")) == NAMES["device_type_error"]


def test_set_autocast_cpu_dtype_refuses_float32_with_pytorchs_error():
    assert error_text(lambda: torch.set_autocast_cpu_dtype(torch.float32)) == NAMES["set_cpu_dtype_error"]


def test_set_autocast_cpu_enabled_refuses_a_non_bool_with_pytorchs_error():
    assert error_text(lambda: torch.set_autocast_cpu_enabled(1)) == NAMES["enabled_not_bool_error"]
