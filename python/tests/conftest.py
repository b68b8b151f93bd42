"""What every Python test shares: `ember` imported from the build tree (CTest sets PYTHONPATH to
build/python; run by hand: PYTHONPATH=build/python python3 -m pytest python/tests), and the
memory check of the C++ suite (tests/main.cpp): when a test has returned and Python has collected
its garbage, ember's allocator counts the same bytes as when it started."""
import gc
import sys

import pytest

import ember

# The marker CTest reads to report a whole file as skipped (python/CMakeLists.txt, tests/skip.h).
SKIPPED = "ember test skipped:"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when == "call":
        item.call_passed = outcome.get_result().passed


@pytest.fixture(autouse=True)
def memory_check(request):
    # pytest keeps the last failed test's exception (for post-mortem debugging), and with it the
    # tensors its frames held: drop it, so they are not counted against this test.
    sys.last_type = sys.last_value = sys.last_traceback = None
    gc.collect()
    at_start = ember.memory_allocated()
    yield
    if not getattr(request.node, "call_passed", False):
        return  # a failed test's traceback still holds its tensors
    gc.collect()
    now = ember.memory_allocated()
    assert now == at_start, (f"memory check: memory_allocated(cpu) was {at_start} bytes when the test started and "
                             f"{now} when it ended")
