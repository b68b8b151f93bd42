#!/usr/bin/env bash
# The GPU half of tools/gpu_check.sh, run on a build folder made with CUDA, in this order:
#  1. the gate: bench_cuda --device asks the CUDA runtime for a GPU, as ember does. Without one it
#     stops at once, non-zero, saying "no CUDA GPU visible", having run nothing (a CTest case,
#     tests/check_gpu_gate.sh, holds it to that on every machine without a GPU);
#  2. every test case tagged [gpu], each in a process of its own, so that a crash or a sticky CUDA
#     error stays in its case; one that fails, or skips, fails the check. They run with
#     EMBER_CUDA_SYNC=1 and CUDA_LAUNCH_BLOCKING=1: every kernel is waited for as it is launched,
#     so a fault is reported by the kernel (and the op) that made it, not by a later one. The steps
#     that measure time below run without them;
#  3. bench_cuda: ember vs raw cuBLAS, the fused bias, a profiled training step and its chrome trace;
#  4. the chapter's exercise 2 on the GPU (fp32 vs fp16 and bf16 autocast) and exercise 1's GPU
#     memory curve, with their charts (gnuplot's where installed, else tools/gpu_charts.py's).
# The logs, the trace and the charts go to the output folder with summary.txt (at most 8 files,
# none over 16 MiB), and the summary is printed last. Each step is held to a share of the time left
# before EMBER_GPU_CHECK_DEADLINE seconds (default 570) after GPU_CHECK_START (default: now), so
# that the summary comes back even when a step hangs.
#   bash tools/gpu_run.sh BUILD_DIR OUTPUT_FOLDER
set -uo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: gpu_run.sh BUILD_DIR OUTPUT_FOLDER}
out=${2:?usage: gpu_run.sh BUILD_DIR OUTPUT_FOLDER}
mkdir -p "$out"
summary=$out/summary.txt
start=${GPU_CHECK_START:-$(date +%s)}
deadline=${EMBER_GPU_CHECK_DEADLINE:-570}
problems=()
skipped_marker="ember test skipped:"

note() { printf '%s\n' "$*" >>"$summary"; }
elapsed() { echo $(($(date +%s) - start)); }
# The seconds a step may run: at most $1, and never past the deadline less 30 s for what follows;
# 0 when less than 10 s are left, and the step is then reported as not run.
allowance() {
  local left=$((deadline - $(elapsed) - 30))
  ((left >= 10)) || left=0
  echo $((left < $1 ? left : $1))
}
out_of_time() { problems+=("not run, out of time (EMBER_GPU_CHECK_DEADLINE=$deadline s): $*"); }
shorten() { local line=$1; ((${#line} > 150)) && line="${line:0:147}..."; printf '%s' "$line"; }

# A file over 16 MiB keeps its first 8 and last 7 MiB; the folder must hold at most 8 files.
check_folder() {
  local file count
  for file in "$out"/*; do
    [ -f "$file" ] || continue
    if (($(stat -c %s "$file") > 16 * 1024 * 1024)); then
      { head -c $((8 << 20)) "$file"; printf '\n[... cut: over 16 MiB ...]\n'; tail -c $((7 << 20)) "$file"; } >"$file.cut"
      mv "$file.cut" "$file"
      problems+=("$(basename "$file") was over 16 MiB: cut in the middle")
    fi
  done
  count=$(find "$out" -maxdepth 1 -type f | wc -l)
  ((count <= 8)) || problems+=("the output folder holds $count files, more than 8")
}

finish() {
  check_folder
  note ""
  if ((${#problems[@]})); then
    note "RESULT: FAILED after $(elapsed) s, ${#problems[@]} problem(s):"
    for problem in "${problems[@]:0:12}"; do note "  - $(shorten "$problem")"; done
    ((${#problems[@]} <= 12)) || note "  ... and $((${#problems[@]} - 12)) more (the logs beside this summary)"
  else
    note "RESULT: PASSED after $(elapsed) s: every GPU case passed, none skipped, every step ran"
  fi
  echo
  echo "==================== GPU check summary ($summary) ===================="
  cat "$summary"
  ((${#problems[@]} == 0))
  exit $?
}

gate() {
  local bench=$build/bench/bench_cuda line code
  if [ ! -x "$bench" ]; then
    line="no CUDA GPU visible: $build has no bench/bench_cuda to ask the CUDA runtime (ember built without CUDA?)"
  else
    line=$(timeout -k 10 60 "$bench" --device 2>&1)
    code=$?
    if ((code == 0)); then
      note "GPU: $line"
      return
    fi
    line=$(printf '%s\n' "$line" | tail -1)
    [[ $line == *"no CUDA GPU visible"* ]] || line="no CUDA GPU visible: bench_cuda --device exited $code: $line"
  fi
  note "GPU: ${line#bench_cuda: }"
  problems+=("no CUDA GPU visible: nothing was run on a GPU")
  finish
}

# Catch's test spec takes a name with its commas and brackets escaped.
catch_spec() {
  local spec=${1//\\/\\\\}
  spec=${spec//,/\\,}
  spec=${spec//\[/\\[}
  printf '%s' "${spec//\]/\\]}"
}

gpu_test_cases() {
  local tests=$build/tests/ember_tests log=$out/tests.log name output code began seconds passed=0 failed=() skipped=()
  local names=() began_all
  began_all=$(date +%s)
  mapfile -t names < <("$tests" "[gpu]" --list-test-names-only 2>/dev/null | sed '/^ *$/d')
  : >"$log"
  for name in "${names[@]}"; do
    began=$(date +%s)
    seconds=$(allowance 240)
    ((seconds > 0)) || { out_of_time "$name"; continue; }
    echo "==== $name" >>"$log"
    output=$(EMBER_CUDA_SYNC=1 CUDA_LAUNCH_BLOCKING=1 timeout -k 10 "$seconds" "$tests" "$(catch_spec "$name")" \
      --warn NoTests 2>&1)
    code=$?
    printf '%s\n==== exit %d after %d s\n\n' "$output" "$code" $(($(date +%s) - began)) >>"$log"
    if [[ $output == *"$skipped_marker"* ]]; then
      skipped+=("$name")
    elif ((code == 0)); then
      passed=$((passed + 1))
    else
      failed+=("$name (exit $code$( ((code == 124)) && echo ': timed out'))")
    fi
  done
  note "GPU test cases [gpu], each in its own process: $((passed + ${#failed[@]} + ${#skipped[@]})) of ${#names[@]} run," \
    "$passed passed, ${#failed[@]} failed, ${#skipped[@]} skipped ($(($(date +%s) - began_all)) s; tests.log)"
  ((${#names[@]} > 0)) || problems+=("no test case tagged [gpu] was found in $tests")
  for name in "${failed[@]}"; do problems+=("failed: $name"); done
  for name in "${skipped[@]}"; do problems+=("skipped on the GPU machine: $name"); done
  local op_cases
  op_cases=$(grep -o "op case [^ :]*" "$log" | sort -u)
  if [ -n "$op_cases" ]; then
    note "  op cases that failed on the GPU ($(wc -l <<<"$op_cases")): $(shorten "$(tr '\n' ' ' <<<"${op_cases//op case /}")")"
  fi
}

bench() {
  local log=$out/bench_cuda.log code seconds
  seconds=$(allowance 240)
  ((seconds > 0)) || { out_of_time bench_cuda; return; }
  timeout -k 10 "$seconds" "$build/bench/bench_cuda" "$out" >"$log" 2>&1
  code=$?
  note ""
  note "bench_cuda (bench_cuda.log):"
  grep -E "^(dtype|Float|BFloat16|Half) " "$log" | sed 's/^/  /' >>"$summary"
  grep -E "Self CUDA time total|^wrote " "$log" | sed "s|$out/||; s/^/  /" >>"$summary"
  ((code == 0)) || problems+=("bench_cuda exited $code: $(tail -1 "$log")")
  grep -q '"gpu_user_annotation"' "$out/gpu_step_trace.json" 2>/dev/null ||
    problems+=("gpu_step_trace.json is missing or has no GPU interval")
}

# Copies the exercise's chart (or draws it from its CSV) into the output folder.
chart() {
  local stem=$1 title=$2 x_label=$3 y_label=$4 scratch=$5
  if [ -s "$scratch/$stem.png" ]; then
    cp "$scratch/$stem.png" "$out/"
  elif [ -s "$scratch/$stem.csv" ] &&
    python3 "$tools/gpu_charts.py" "$scratch/$stem.csv" "$out/$stem.png" "$title" "$x_label" "$y_label" \
      >>"$out/exercises.log" 2>&1; then
    :
  elif [ -s "$scratch/$stem.csv" ]; then
    cp "$scratch/$stem.csv" "$out/"
    note "  no chart could be drawn (no gnuplot, no matplotlib): $stem.csv instead"
  else
    problems+=("$stem: the exercise wrote no chart and no CSV")
  fi
}

exercises() {
  local log=$out/exercises.log scratch=$build/gpu-check-scratch code seconds
  rm -rf "$scratch" && mkdir -p "$scratch"
  : >"$log"
  seconds=$(allowance 150)
  ((seconds > 0)) || { out_of_time "exercises 2 and 1"; return; }
  echo "==== exercise 2: fp32 vs autocast" >>"$log"
  timeout -k 10 "$seconds" "$build/demos/exercise2_autocast" "$scratch" >>"$log" 2>&1
  code=$?
  note ""
  note "exercise 2 on the GPU (exercises.log):"
  awk '/^cuda:[0-9]+, /{on=1} /^$/{on=0} on && /^cuda|output error|speedup|=>/' "$log" | sed 's/^ */  /' >>"$summary"
  ((code == 0)) || problems+=("exercise2_autocast exited $code")
  for low in Half BFloat16; do  # float16 and bfloat16, as PyTorch names them
    grep -q "^cuda:0, $low autocast" "$log" || problems+=("exercise 2 measured no $low autocast on the GPU")
  done
  chart exercise2_autocast "Exercise 2: float32 vs autocast, the same Linear stack" "device and precision" \
    "time per forward pass (ms)" "$scratch"

  echo "==== exercise 1: memory per step" >>"$log"
  local before
  before=$(wc -l <"$log")
  seconds=$(allowance 120)
  ((seconds > 0)) || { out_of_time "exercise 1"; return; }
  timeout -k 10 "$seconds" "$build/demos/exercise1_memory_leak" "$scratch" >>"$log" 2>&1
  code=$?
  note "exercise 1 on the GPU:"
  tail -n +"$before" "$log" | awk '/memory_allocated\(cuda/{on=1} on && /^growth per step/{block=1; next}
    /^$/{block=0} on && (block || /together/)' | sed 's/^ */  /' >>"$summary"
  ((code == 0)) || problems+=("exercise1_memory_leak exited $code")
  grep -q "memory_allocated(cuda:0)" "$log" || problems+=("exercise 1 drew no GPU memory curve")
  chart exercise1_memory_cuda "Exercise 1: keeping the loss keeps its graph (cuda:0)" "training step" \
    "memory_allocated above the start (KiB)" "$scratch"
  if grep -q "The CUDA run" "$log"; then problems+=("an exercise's CUDA run stopped: $(grep -m1 "The CUDA run" "$log")"); fi
}

gate
gpu_test_cases
bench
exercises
finish
