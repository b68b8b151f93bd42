#!/usr/bin/env bash
# Fails, naming the files, when a tracked C++ or CUDA source is not formatted as .clang-format
# says (fix one with `clang-format -i FILE`). The style is checked with Debian 12's clang-format
# (version 14); CI runs on a fresh machine, so this installs it when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang-format >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang-format >/dev/null
fi

# tests/fixtures/ holds generated code (ember::compile's goldens), checked as it is generated.
files=$(git ls-files '*.cpp' '*.h' '*.cu' '*.cuh' | grep -v '^tests/fixtures/')
unformatted=()
for f in $files; do
  [ -f "$f" ] || continue  # deleted in the working tree
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if ((${#unformatted[@]})); then
  echo "check_format: not formatted as .clang-format says (clang-format -i FILE fixes one):"
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "check_format: every tracked C++/CUDA source is formatted"
