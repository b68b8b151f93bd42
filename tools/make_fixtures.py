#!/usr/bin/python3
"""PyTorch reference-fixture generator for ember's C++ tests.

Rerun from the repo root with Debian's torch (PyTorch 1.13):

    /usr/bin/python3 tools/make_fixtures.py [FILE.json ...]

(naming files, e.g. profiler.json, writes only those; `python3` may be a pyenv interpreter without
torch.) The script runs itself on Debian's netlib BLAS and LAPACK whatever the libblas.so.3
alternative points at (and ATen's kernels at AVX2), refuses to run on another BLAS or another torch than 1.13
(tools/fixtures/provenance.py), and every file it writes starts with
{"provenance": {"torch", "blas", "script"}}. Output is deterministic: every section
calls torch.manual_seed first, and JSON is written compactly
(indent=None, separators=(",", ":")). It writes:

  tests/fixtures/ops.json       {"count", "with_grads", "cases": [...]} per-op forward + backward
                                cases, how many and how many with gradients
                                (tools/fixtures/ops_cases.py documents the case layout and the
                                op/args vocabulary; its OPS table is the exact torch call)
  tests/fixtures/printing.json  {"cases": [{"name", "input", "str", "tolist"}]}: str(t) and
                                repr(t.tolist()) for ~40 tensors
  tests/fixtures/mlp.json       2-layer MLP forward/backward and SGD trajectories
                                (keys documented in tools/fixtures/mlp.py)
  tests/fixtures/optim.json     a small MLP trained 10 steps by Adam, AdamW (with amsgrad, weight
                                decay) and SGD then Adam: gradients and parameters after every step
                                (keys documented in tools/fixtures/optim.py)
  tests/fixtures/errors.json    {"cases": [{"name", "code", "type", "message"}]}: PyTorch's error
                                messages for invalid calls; a summary table goes to stdout
  tests/fixtures/random.json    seeded random numbers as exact bit patterns, and the random ops'
  tests/fixtures/nn_random.json error texts; nn.Linear initialisation, the chapter's sequence and
                                an end-to-end MLP (layouts documented in tools/fixtures/random.py)
  tests/fixtures/autocast.json  the chapter's network under CPU bf16 autocast (tools/fixtures/autocast.py)
  tests/fixtures/nn_modules.json nn modules as a user runs them (tools/fixtures/nn_modules.py)
  tests/fixtures/profiler.json  the profiler's event tree for the chapter's profiled line and for
                                small lines (clone, contiguous, ones_like, sum, relu, Linear, the
                                forward under no_grad), the chapter's memory columns, and its
                                tables for a fixed event list (tools/fixtures/profiler.py)
  tests/fixtures/fidelity.json  the behaviours a differential fuzz found ember getting wrong
                                (issue 13's table): layouts, no_grad views, freed graphs, sqrt
                                bits, texts (keys documented in tools/fixtures/fidelity.py and the
                                fidelity_*.py files it names)
  tests/fixtures/size_sweep.json huge and negative sizes into every factory, view and resize_:
                                PyTorch's result's layout or its error text (tools/fixtures/size_sweep.py)
  tests/fixtures/saved_hooks.json saved-tensor hooks: pack/unpack order, gradients through a
                                bfloat16 pack, their rules and error texts (tools/fixtures/saved_hooks.py)
  tests/fixtures/composite_views.json  the views written with other views (movedim, T, tensor_split,
                                ...): outputs, nodes, profiler events, errors (tools/fixtures/composite_views.py)
  tests/fixtures/integer_dtypes.json  uint8, int8, int16 and int32: promotion, wrapping ops, casts,
                                printing, the default dtype, errors (tools/fixtures/integer_dtypes.py)
  tests/fixtures/views_more.json  unfold, the *_copy ops, set_ and resize_as_: outputs, nodes, events,
                                gradients, errors (tools/fixtures/views_more.py)
  tests/fixtures/losses.json    nll_loss and cross_entropy with weight, N-d inputs, ignore_index and
                                label_smoothing: values, gradients, nodes, event trees, errors
                                (tools/fixtures/losses.py)
  tests/fixtures/graph_dot.json  autograd graphs as torchviz's make_dot(show_saved=True) draws them: boxes
                                and edges (tools/fixtures/graph_dot.py)
  tests/fixtures/autograd_debug.json  autograd::grad's first and second derivatives, the chapter
                                network's graph, hooks, retain_grad and anomaly mode's texts
                                (keys documented in tools/fixtures/autograd_debug.py)
  tests/fixtures/exact_sums.json float32 and float64 sums and means, every bit PyTorch's, in its order
                                of additions under AVX2 (tools/fixtures/exact_sums.py)
  tests/fixtures/exact_pow.json x.pow(e) for float32 and float64, every bit PyTorch's (Sleef's pow over
                                its vectors, libm's over the rest; tools/fixtures/exact_pow.py)
  tests/fixtures/replay.json    random op programs and PyTorch's result after every statement, for
                                the differential replay (tools/fixtures/replay.py; run alone it
                                writes more programs for a long run)

After writing, the script re-reads ops.json/printing.json, rebuilds every input from the JSON
alone and re-runs it (tools/fixtures/check.py), requiring bit-identical results.

Tensor spec used everywhere:
  {"shape": [2,3], "dtype": "float32"|"float64"|"bfloat16"|"float16"|"int64"|"bool",
   "data": [flat row-major values of a fresh contiguous BASE tensor],
   "views": [recipe steps applied in order to the base]}    (inputs only; outputs have no views)
  Floats are JSON numbers (float(x); exact for all four float dtypes), NaN/inf are the strings
  "nan"/"inf"/"-inf"; a 0-dim tensor has shape [] and a one-element data list.
  View steps: ["t"], ["transpose",d0,d1], ["permute",[dims]], ["slice",dim,start,end,step],
  ["select",dim,index], ["expand",[sizes]], ["unsqueeze",d], ["squeeze",d], ["view",[sizes]],
  ["reshape",[sizes]], ["flatten",start,end], ["narrow",dim,start,length], ["contiguous"]
  (see tools/fixtures/spec.py:apply_view_step).

ops.json case: {"name","op","inputs":[spec],"args":{},"output": spec | [values, indices],
  "grad_output": spec, "grads": [spec|null per input]}. grad_output/grads are present iff the
  output is floating and at least one input is floating; grads are w.r.t. each input's BASE
  (shape = base shape), null for non-floating inputs. For max_dim/min_dim grad_output belongs to
  the values output.
"""
import os
import sys
import time

sys.dont_write_bytecode = True  # keep tools/fixtures/ free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixtures import provenance  # noqa: E402

provenance.pin_netlib_blas()  # restarts this process with netlib's BLAS first on the library path

import torch  # noqa: E402

from fixtures import (autocast, autograd_debug, check, composite_views, errors, exact_pow, exact_sums,  # noqa: E402
                      fidelity, integer_dtypes, losses, mlp, nn_modules, ops_cases, optim, printing, profiler, graph_dot,
                      random, replay, saved_hooks, size_sweep, views_more)
from fixtures.spec import dump_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures")
MAX_BYTES = 2 * 1024 * 1024


def main():
    made_with = provenance.check(torch)  # refuses unless torch 1.13 on netlib's BLAS
    torch.set_num_threads(1)  # deterministic reduction order
    os.makedirs(OUT_DIR, exist_ok=True)
    t0 = time.time()
    builders = [
        ("ops.json", ops_cases, ops_cases.build),
        ("printing.json", printing, printing.build),
        ("mlp.json", mlp, mlp.build),
        ("optim.json", optim, optim.build),
        ("errors.json", errors, errors.build),
        ("random.json", random, random.build),
        ("nn_random.json", random, random.build_nn),
        ("profiler.json", profiler, profiler.build),
        ("autocast.json", autocast, autocast.build),
        ("nn_modules.json", nn_modules, nn_modules.build),
        ("fidelity.json", fidelity, fidelity.build),
        ("size_sweep.json", size_sweep, size_sweep.build),
        ("saved_hooks.json", saved_hooks, saved_hooks.build),
        ("graph_dot.json", graph_dot, graph_dot.build),
        ("autograd_debug.json", autograd_debug, autograd_debug.build),
        ("replay.json", replay, replay.build),
        ("composite_views.json", composite_views, composite_views.build),
        ("integer_dtypes.json", integer_dtypes, integer_dtypes.build),
        ("exact_sums.json", exact_sums, exact_sums.build),
        ("exact_pow.json", exact_pow, exact_pow.build),
        ("views_more.json", views_more, views_more.build),
        ("losses.json", losses, losses.build),
    ]
    only = sys.argv[1:]  # file names to write (e.g. profiler.json); none: all of them
    unknown = set(only) - {fname for fname, _, _ in builders}
    if unknown:
        raise SystemExit("no such fixture: %s" % ", ".join(sorted(unknown)))
    outputs = [(fname, module, build()) for fname, module, build in builders if not only or fname in only]
    print("torch %s, BLAS: %s" % (made_with["torch"], made_with["blas"]))
    for fname, module, obj in outputs:
        path = os.path.join(OUT_DIR, fname)
        script = os.path.relpath(os.path.abspath(module.__file__), ROOT)
        n = dump_json(provenance.stamp(obj, made_with, script), path)
        ncases = len(obj["cases"]) if "cases" in obj else "-"
        print("wrote %-40s %9d bytes  cases=%s" % (os.path.relpath(path, ROOT), n, ncases))
        if n > MAX_BYTES:
            raise SystemExit("%s is larger than %d bytes" % (fname, MAX_BYTES))
    if only:
        print("\ndone in %.1fs (only %s)" % (time.time() - t0, ", ".join(only)))
        return
    ops = outputs[0][2]["cases"]
    counts = {}
    for c in ops:
        counts[c["op"]] = counts.get(c["op"], 0) + 1
    print("\nops.json cases per op:")
    print("  " + ", ".join("%s=%d" % kv for kv in sorted(counts.items())))
    print("\nerrors.json summary:")
    print(errors.summary(next(obj for fname, _, obj in outputs if fname == "errors.json")))
    n_ops = check.check_ops(os.path.join(OUT_DIR, "ops.json"))
    n_pr = check.check_printing(os.path.join(OUT_DIR, "printing.json"))
    print("\nself-check: re-ran %d ops.json cases and %d printing cases from the JSON: bit-identical"
          % (n_ops, n_pr))
    print("\ndone in %.1fs" % (time.time() - t0))


if __name__ == "__main__":
    main()
