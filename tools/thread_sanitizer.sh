#!/usr/bin/env bash
# The ThreadSanitizer run of the suite (issue 21), run before each stop: its build is too slow
# for CI on two cores. ThreadSanitizer must see OpenMP's barriers, or every parallel_for would look
# like a race: GCC's libgomp is not instrumented, LLVM's libomp is, through its Archer tool
# (OMP_TOOL_LIBRARIES). So this build uses clang++ and libomp (Debian's clang and libomp-dev).
# oneDNN, a Debian library built with libgomp, is not instrumented: its own threads are not checked.
#   bash tools/thread_sanitizer.sh              build into build-tsan/ and run the whole suite
#   bash tools/thread_sanitizer.sh "[parallel]" ... or the test cases a Catch2 spec picks
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
# ember::compile's kernels are built by clang++ too (EMBER_CXX), so that they use the same OpenMP
# runtime, libomp, which Archer sees; g++'s would bring libgomp into the process beside it.
# The whole suite: every op's parallel_for runs on OpenMP's threads. allocator_may_return_null: an
# impossible allocation returns null (ember then raises its error), as in CI's sanitizer build.
EMBER_CXX=clang++ OMP_TOOL_LIBRARIES=$archer \
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 allocator_may_return_null=1 suppressions=$PWD/.ci/tsan.supp" \
  build-tsan/tests/ember_tests "$@"
