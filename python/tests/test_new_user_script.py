"""A new user's PyTorch script (new_user_script.py: views, a state_dict round trip,
CrossEntropyLoss, autocast's queries, the profiler's schedule, integer dtypes) run with `ember` as
`torch` prints what it printed under PyTorch 1.13 (new_user_script.expected), line for line."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_a_new_users_script_prints_what_pytorch_printed():
    run = subprocess.run([sys.executable, os.path.join(HERE, "new_user_script.py"), "ember"], capture_output=True,
                         text=True, env=os.environ, timeout=120)
    assert run.returncode == 0, run.stderr
    with open(os.path.join(HERE, "new_user_script.expected")) as f:
        expected = f.read().splitlines()
    assert run.stdout.splitlines() == expected
