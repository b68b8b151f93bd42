#!/usr/bin/env python3
"""Fails, naming the include, when a file includes one from a higher layer. The layers, lowest first,
are the architecture: each may use only its own and those below it. .ci/run calls this.

  0  engine/core/       the tensor and what it is made of: storage, allocators, TensorImpl, the
                        handle, dtypes, layout, modes, errors
  1  kernels/, cuda/    compute on a tensor's bytes; never call up into ops
  2  engine/api/        what ops offer: the public op functions (ops.h, random.h) and the fresh
                        tensors ops and autograd make (new_tensors.h); declarations only
  3  engine/profiler/, engine/autograd/, engine/autocast/, engine/capture/
                        the dispatcher's layers; autograd's formulas call ops through api/ops.h;
                        a graph capture records the calls (torch.compile's first half)
  4  engine/dispatch.h  runs those layers in order around each op
  5  engine/ops/        the ops themselves, each entered through dispatch.h, and their helpers
  6  engine/nn/, engine/optim/, engine/debug/, engine/compile/
                        modules and optimizers, written with ops; the user's tools for looking at
                        autograd (gradcheck, graph_dot); the compiler, which runs ops and kernels
  7  engine/ember.h     the umbrella header users include
"""
import os
import re
import subprocess
import sys

ROOMS = {"engine/core": 0, "kernels": 1, "cuda": 1, "engine/api": 2, "engine/profiler": 3, "engine/autograd": 3,
         "engine/autocast": 3, "engine/capture": 3, "engine/compile": 6, "engine/ops": 5, "engine/nn": 6, "engine/optim": 6, "engine/debug": 6}


def layer(path):
    if path == "engine/dispatch.h":
        return 4
    if path == "engine/ember.h":
        return 7
    for room, number in ROOMS.items():
        if path.startswith(room + "/"):
            return number
    raise SystemExit(f"check_include_layers: {path} is in no layer; add its folder to ROOMS")


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tracked = subprocess.run(["git", "ls-files", "engine", "kernels", "cuda"], capture_output=True, text=True,
                             check=True).stdout.split()
    sources = [f for f in tracked if re.search(r"\.(h|cpp|cu|cuh)$", f) and os.path.exists(f)]
    known = set(sources)
    upward = []
    for source in sources:
        for name in re.findall(r'#include "([^"]+)"', open(source, encoding="utf-8").read()):
            # Quoted includes resolve next to the file first, then in engine/ and the repository root.
            for folder in (os.path.dirname(source), "engine", ""):
                target = os.path.normpath(os.path.join(folder, name))
                if target in known:
                    if layer(target) > layer(source):
                        upward.append(f"  {source} (layer {layer(source)}) includes {target} (layer {layer(target)})")
                    break
    if upward:
        print("check_include_layers: these includes point to a higher layer (see the layers in this script):")
        print("\n".join(upward))
        sys.exit(1)
    print(f"check_include_layers: {len(sources)} sources, every include points to its own layer or below")


main()
