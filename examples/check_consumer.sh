#!/usr/bin/env bash
# Builds and runs examples/consumer, a project of one's own, against ember the two ways the README
# gives: find_package of an installed ember, or add_subdirectory of a clone. `subdirectory` checks how
# ember is configured there and compiles the consumer's own code against it; `subdirectory-build`
# also compiles the library again and runs the consumer (CI's, examples/CMakeLists.txt).
# Usage: check_consumer.sh install EMBER_BUILD_DIR WORK_DIR
#        check_consumer.sh subdirectory|subdirectory-build EMBER_SOURCE_DIR WORK_DIR
set -euo pipefail
how=$1 from=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
case "$how" in
  install)
    cmake --install "$from" --prefix "$work/prefix" >/dev/null
    cmake -S "$here/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
    ;;
  subdirectory | subdirectory-build)
    # Portable: the library is compiled again here. No build type and no EMBER_CUDA, as a project
    # that adds ember would leave them: ember must still be optimised, and CPU-only.
    # Unity-built (EMBER_UNITY_BUILD), as the README's test command builds it: the same library in
    # 60% of the compile time.
    cmake -S "$here/consumer" -B "$work/build" -G Ninja -DEMBER_SOURCE_DIR="$from" -DEMBER_NATIVE=OFF \
      -DEMBER_UNITY_BUILD=ON >/dev/null
    commands=$(ninja -C "$work/build" -t commands ember)
    grep -q -- " -O3 .*unity_0_cxx.cxx" <<<"$commands" || { echo "FAIL: ember is compiled without -O3"; exit 1; }
    if grep -q nvcc <<<"$commands"; then echo "FAIL: ember compiles CUDA though the project did not ask"; exit 1; fi
    if [ "$how" = subdirectory ]; then  # the consumer's code, with the headers and definitions it gets
      ninja -C "$work/build" CMakeFiles/consumer.dir/main.cpp.o >/dev/null
      exit 0
    fi
    ;;
  *) echo "usage: check_consumer.sh install|subdirectory|subdirectory-build FROM WORK_DIR" >&2; exit 2 ;;
esac
cmake --build "$work/build" --parallel "$(nproc)" >/dev/null
"$work/build/consumer"
