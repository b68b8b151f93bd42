#!/usr/bin/env bash
# The GPU check's gate on a machine without a GPU: tools/gpu_run.sh, given this build, must exit
# non-zero at once with a message naming the missing GPU ("no CUDA GPU visible"), having run
# nothing (its output folder holds its summary alone). In a build with CUDA the message must be
# the CUDA runtime's answer, asked through bench_cuda. On a machine with an NVIDIA device the case
# says it is skipped: there tools/gpu_check.sh's own run shows the gate passing.
# Usage: check_gpu_gate.sh BUILD_DIR EMBER_HAS_CUDA(ON|OFF)
set -uo pipefail
build=$1 has_cuda=$2
devices=(/dev/nvidia[0-9]*)
if [ -e "${devices[0]}" ]; then
  echo "ember test skipped: this machine has an NVIDIA GPU (${devices[0]}); the gate is for machines without one"
  exit 0
fi
if [ "$has_cuda" = ON ] && [ ! -x "$build/bench/bench_cuda" ]; then
  echo "FAIL: ember is built with CUDA but $build/bench/bench_cuda, the gate's question, is not built"
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
output=$(bash "$(dirname "$0")/../tools/gpu_run.sh" "$build" "$out" 2>&1)
status=$?
echo "$output"
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
((status != 0)) || fail "gpu_run.sh exited 0 on a machine without a GPU"
[[ $output == *"no CUDA GPU visible"* ]] || fail "its output does not say 'no CUDA GPU visible'"
if [ "$has_cuda" = ON ]; then
  [[ $output == *"CUDA runtime: "* ]] || fail "its message is not the CUDA runtime's answer"
fi
[ "$(ls -A "$out")" = summary.txt ] || fail "it wrote more than its summary: $(ls -A "$out" | tr '\n' ' ')"
[[ $output != *"GPU test cases"* ]] || fail "it ran the GPU test cases"
exit $failed
