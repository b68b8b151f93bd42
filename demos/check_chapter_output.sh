#!/usr/bin/env bash
# Runs the chapter program N times and compares each run's output with the chapter's printed
# output. Thirty of its 31 lines are deterministic and must match byte for byte. The other is a
# measurement, the profiler's two top ops by self time: the chapter's claim about it is only that
# a matrix product leads (aten::mm or aten::addmm; which op comes second differs between CPUs,
# and PyTorch's own second op does too). That claim is judged whenever the program's profile ran
# undisturbed; when other programs held the CPU through all its attempts, the program says so on
# stderr and only the line's form is checked, since a wall-clock ranking then measures the load.
set -euo pipefail
program=$1 expected=$2 runs=${3:-10}
ranking_line='^占用 CPU 时间最多的两个算子： '
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
judged=0
for ((i = 1; i <= runs; ++i)); do
  output=$("$program" 2>"$stderr_file")
  if ! diff <(echo "$output" | sed "s/${ranking_line}.*/(the ranking)/") \
    <(sed "s/${ranking_line}.*/(the ranking)/" "$expected"); then
    echo "run $i of $runs: the lines above differ from $expected"
    exit 1
  fi
  ranking=$(echo "$output" | grep "$ranking_line")
  if ! echo "$ranking" | grep -qE "${ranking_line}\['aten::[a-z_]+', 'aten::[a-z_]+'\]\$"; then
    echo "run $i of $runs: not a ranking of two aten ops: $ranking"
    exit 1
  fi
  if grep -q "other programs held the CPU" "$stderr_file"; then
    echo "run $i of $runs: $(cat "$stderr_file")"
    continue
  fi
  judged=$((judged + 1))
  if ! echo "$ranking" | grep -qE "${ranking_line}\['aten::(mm|addmm)', "; then
    echo "run $i of $runs: a matrix product does not lead: $ranking"
    exit 1
  fi
done
echo "$runs passed, 0 failed (the ranking judged in $judged undisturbed runs)"
