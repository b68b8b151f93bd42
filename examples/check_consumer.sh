#!/usr/bin/env bash
# Builds and runs examples/consumer, a project of one's own, against ember the two ways the README
# gives: find_package of an installed ember, or add_subdirectory of a clone.
# Usage: check_consumer.sh install EMBER_BUILD_DIR WORK_DIR | check_consumer.sh subdirectory EMBER_SOURCE_DIR WORK_DIR
set -euo pipefail
how=$1 from=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
case "$how" in
  install)
    cmake --install "$from" --prefix "$work/prefix" >/dev/null
    cmake -S "$here/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
    ;;
  subdirectory)
    # CPU-only and portable: the library is compiled again here, so no more of it than needed.
    cmake -S "$here/consumer" -B "$work/build" -G Ninja -DEMBER_SOURCE_DIR="$from" -DEMBER_CUDA=OFF \
      -DEMBER_NATIVE=OFF >/dev/null
    ;;
  *) echo "usage: check_consumer.sh install|subdirectory FROM WORK_DIR" >&2; exit 2 ;;
esac
cmake --build "$work/build" --parallel "$(nproc)" >/dev/null
"$work/build/consumer"
