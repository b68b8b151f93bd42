#!/usr/bin/env bash
# The GPU check on a working tree without .gpu-bundle/: tools/gpu_check.sh must stop at once,
# non-zero, before building or writing anything, naming the one command that makes the bundle and
# saying that the folder must be carried to the GPU machine. Run on a copy of the script in an
# empty tree, so that a bundle made in this checkout does not hide the message.
set -uo pipefail
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/tools"
cp "$(dirname "$0")/../tools/gpu_check.sh" "$tree/tools/"
output=$(cd "$tree" && bash tools/gpu_check.sh "$tree/out" 2>&1)
status=$?
echo "$output"
problems=()
((status == 2)) || problems+=("gpu_check.sh exited $status, not 2")
[[ $output == *"bash tools/gpu_bundle.sh"* ]] || problems+=("it does not name the command that makes the bundle")
[[ $output == *'carry [".gpu-bundle"]'* ]] || problems+=("it does not say that .gpu-bundle must be carried")
[ ! -e "$tree/out" ] && [ ! -e "$tree/build-gpu" ] || problems+=("it wrote something before stopping")
for problem in "${problems[@]}"; do echo "FAIL: $problem"; done
((${#problems[@]} == 0))
