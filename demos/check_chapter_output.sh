#!/usr/bin/env bash
# Runs the chapter program N times and diffs each run's output with the chapter's printed output.
# One line is a race: which of the two matrix products (three aten::mm, two aten::addmm of the
# same size) has more self time. Idle, ember ranks them as the chapter does; on a loaded machine
# two OpenMP threads sharing a core can flip them, so this check accepts the two products in
# either order there, and nothing else.
set -euo pipefail
program=$1 expected=$2 runs=${3:-10}
for ((i = 1; i <= runs; ++i)); do
  if ! diff <("$program" | sed "s/\['aten::addmm', 'aten::mm'\]/['aten::mm', 'aten::addmm']/") "$expected"; then
    echo "run $i of $runs differs from $expected"
    exit 1
  fi
done
echo "$runs passed, 0 failed"
