#!/usr/bin/env bash
# The ThreadSanitizer run of the suite's threaded tests (issue 21), run before each stop: too slow
# for CI on two cores. ThreadSanitizer must see OpenMP's barriers, or every parallel_for would look
# like a race: GCC's libgomp is not instrumented, LLVM's libomp is, through its Archer tool
# (OMP_TOOL_LIBRARIES). So this build uses clang++ and libomp (Debian's clang and libomp-dev).
# oneDNN, a Debian library built with libgomp, is not instrumented: its own threads are not checked.
#   bash tools/thread_sanitizer.sh            build into build-tsan/ and run the threaded tests
#   bash tools/thread_sanitizer.sh "[ops]"    ... and any other Catch2 test spec
set -euo pipefail
cd "$(dirname "$0")/.."
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -n 1)
if ! command -v clang++ >/dev/null || [ -z "$archer" ]; then
  echo "thread_sanitizer: needs clang++ and LLVM's OpenMP with Archer (Debian: clang libomp-dev)" >&2
  exit 2
fi
cmake -S . -B build-tsan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEMBER_SANITIZE=thread -DEMBER_CUDA=OFF >/dev/null
cmake --build build-tsan --parallel "$(nproc)" --target ember_tests
# The tests that start threads of their own or run parallel_for over several threads.
spec=${1:-"[parallel],[modes],[profiler],[random]"}
OMP_TOOL_LIBRARIES=$archer TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/.ci/tsan.supp" \
  build-tsan/tests/ember_tests "$spec"
