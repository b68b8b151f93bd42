"""Runs PyTorch's own test methods, unchanged, with `torch` bound to ember (or to real torch, to check
the shim): the methods selection.py picks from each of its FILES, one process per file, each method
with a time limit. A process that crashes or hangs is replaced, and the rest of its file goes on in
the new one. Ends with `N passed, M failed`, each failure with its first line, and compares the
failures with expected_failures.txt (under ember; under real torch every selected method must pass):
the exit status is non-zero when a method fails that is not listed there, or passes that is.

    python3 run.py --tests DIR [--torch=ember|real] [--timeout S] [-k TEXT] [--verbose]
"""
import argparse
import importlib.util
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import selection  # noqa: E402


# ---- the child: one test file in this process ----

def _test_methods(module):
    """(test id, class, method name, generic class name, generic method name) for each test, in file order."""
    for cls in list(vars(module).values()):
        if not (isinstance(cls, type) and issubclass(cls, unittest.TestCase)) or cls.__module__ != module.__name__:
            continue
        for name in unittest.TestLoader().getTestCaseNames(cls):
            function = getattr(cls, name)
            generic_class = getattr(cls, "generic_class_name", cls.__name__)
            yield f"{cls.__name__}.{name}", cls, name, generic_class, getattr(function, "generic_name", name)


def _outcome(result):
    for status, entries in (("error", result.errors), ("fail", result.failures), ("skip", result.skipped)):
        if entries:
            detail = entries[0][1]
            if status != "skip":
                lines = [line for line in detail.strip().splitlines() if line.strip()]
                detail = lines[-1] if lines else ""
            return ("fail" if status == "error" else status), " ".join(detail.split())[:300]
    return "pass", ""


def run_child(path, engine, start_after, timeout, pattern, report):
    import torch_binding
    torch_binding.bind(engine)
    sys.path.insert(0, os.path.dirname(path))  # the file's own imports of its sibling modules
    warnings.simplefilter("default")
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)

    def on_alarm(signum, frame):
        raise TimeoutError(f"the test ran longer than {timeout} s")
    signal.signal(signal.SIGALRM, on_alarm)

    started = start_after is None
    for test_id, cls, name, generic_class, generic_name in _test_methods(module):
        if not started:
            started = test_id == start_after
            continue
        if not selection.selected(generic_class, generic_name) or (pattern and pattern not in test_id):
            continue
        reason = selection.exclusion(generic_class, generic_name, test_id)
        if reason:
            report(f"RESULT {test_id} excluded ember does not have {reason}")
            continue
        report(f"START {test_id}")
        result = unittest.TestResult()
        signal.alarm(timeout)
        try:
            cls(name).run(result)
        finally:
            signal.alarm(0)
        status, detail = _outcome(result)
        report(f"RESULT {test_id} {status} {detail}")
    report("DONE")


# ---- the parent: one child per file, replaced when it dies ----

def _run_file(args, path, results):
    start_after = None
    while True:
        read_end, write_end = os.pipe()
        command = [sys.executable, os.path.abspath(__file__), "--child", path, "--torch", args.torch,
                   "--timeout", str(args.timeout), "--report-fd", str(write_end)]
        if start_after:
            command += ["--start-after", start_after]
        if args.k:
            command += ["-k", args.k]
        output = None if args.verbose else tempfile.TemporaryFile(mode="w+")
        child = subprocess.Popen(command, pass_fds=(write_end,), stdout=output, stderr=output)
        os.close(write_end)
        running, finished = None, False
        with os.fdopen(read_end) as reports:
            chooser = selectors.DefaultSelector()
            chooser.register(reports, selectors.EVENT_READ)
            while True:
                if not chooser.select(timeout=args.timeout + 30):  # hung where the alarm cannot reach it
                    child.kill()
                    results[running] = ("fail", f"no result after {args.timeout + 30} s; the process was killed")
                    break
                line = reports.readline()
                if not line:
                    break
                kind, _, rest = line.rstrip("\n").partition(" ")
                if kind == "DONE":
                    finished = True
                elif kind == "START":
                    running = rest
                elif kind == "RESULT":
                    test_id, status, detail = (rest.split(" ", 2) + [""])[:3]
                    results[test_id] = (status, detail)
                    running = None
                    if args.verbose or status == "fail":
                        print(f"{status.upper():8} {test_id} {detail}", flush=True)
        child.wait()
        if finished:
            return
        if running is None:
            if output is not None:
                output.seek(0)
                print("".join(output.readlines()[-20:]))
            results[os.path.basename(path)] = ("fail", f"the file did not load or its process ended (status "
                                               f"{child.returncode}); its last output is above")
            return
        if running not in results:
            results[running] = ("fail", f"the process ended with status {child.returncode} during the test")
        print(f"FAIL     {running} {results[running][1]}", flush=True)
        start_after = running


def _expected_failures():
    expected = {}
    with open(os.path.join(HERE, "expected_failures.txt")) as listing:
        for line in listing:
            line = line.split("#", 1)[0].strip()
            if line:
                test_id, _, cause = line.partition(" ")
                expected[test_id] = cause.strip()
    return expected


def run_parent(args):
    begun = time.monotonic()
    results = {}
    for name in selection.FILES:
        _run_file(args, os.path.join(args.tests, name), results)
    counts = {}
    for status, _ in results.values():
        counts[status] = counts.get(status, 0) + 1
    failed = {test_id for test_id, (status, _) in results.items() if status == "fail"}
    expected = _expected_failures() if args.torch == "ember" and not args.k else {}
    unexpected_failures = sorted(failed - expected.keys())
    unexpected_passes = sorted(t for t in expected if results.get(t, ("", ""))[0] == "pass")
    print("\nper group (passed / ran):")
    for group in selection.GROUPS:
        ran = [t for t, (s, _) in results.items() if s in ("pass", "fail") and selection.group_of(t) == group]
        passed = [t for t in ran if results[t][0] == "pass"]
        print(f"  {group:40} {len(passed):4} / {len(ran)}")
    for test_id in unexpected_failures:
        print(f"unexpected failure: {test_id}: {results[test_id][1]}")
    for test_id in unexpected_passes:
        print(f"unexpected pass (remove it from expected_failures.txt): {test_id}")
    print(f"\n{counts.get('pass', 0)} passed, {counts.get('fail', 0)} failed ({len(failed & expected.keys())} of them "
          f"expected), {counts.get('skip', 0)} skipped, {counts.get('excluded', 0)} excluded; torch = {args.torch}; "
          f"{time.monotonic() - begun:.0f} s")
    return 1 if unexpected_failures or unexpected_passes else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", help="the folder holding PyTorch's test files")
    parser.add_argument("--torch", choices=["ember", "real"], default="ember")
    parser.add_argument("--timeout", type=int, default=60, help="seconds a test may run")
    parser.add_argument("-k", help="run only the tests whose id contains this text")
    parser.add_argument("--verbose", action="store_true", help="every result, and the tests' own output")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--start-after", help=argparse.SUPPRESS)
    parser.add_argument("--report-fd", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        channel = os.fdopen(args.report_fd, "w", buffering=1)
        try:
            run_child(args.child, args.torch, args.start_after, args.timeout, args.k,
                      lambda line: channel.write(line + "\n"))
        except BaseException:
            traceback.print_exc()
            raise
        return 0
    if not args.tests:
        parser.error("--tests is required")
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
