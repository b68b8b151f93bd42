#!/usr/bin/env bash
# The README's two commands:
#   bash tools/ember.sh demo   - install what is missing, build the chapter's programs (its script in
#                                C++, the exercises, the pitfalls) and the Python module into
#                                build-demo/, run the script
#   bash tools/ember.sh test   - install what is missing, build everything into build/, run the suite
# The chapter's programs run on the CPU, so the demo's build leaves out the CUDA backend (minutes of
# nvcc on a 2-core machine); the test build compiles it wherever nvcc exists.
# Extra CMake arguments can be passed in EMBER_CMAKE_ARGS and another build folder in EMBER_BUILD_DIR
# (.ci/run uses both for the sanitizer build).
set -euo pipefail
cd "$(dirname "$0")/.."

# pybind11-dev and python3-dev build the Python module, python3-pytest runs its tests, python3-numpy
# is its NumPy interop's counterpart (python/CMakeLists.txt). graphviz draws the autograd graphs
# (demos/graph_pictures.cpp), as gnuplot-nox draws the exercises' charts.
packages=(cmake ninja-build g++ libeigen3-dev libdnnl-dev catch2 nlohmann-json3-dev gnuplot-nox graphviz
  pybind11-dev python3-dev python3-pytest python3-numpy)

install_missing_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "ember: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

configure_and_build() {
  # Both commands build fresh, so the library is compiled in batches (EMBER_UNITY_BUILD, CMakeLists.txt).
  # shellcheck disable=SC2086
  cmake -S . -B "$build_dir" -G Ninja -DEMBER_UNITY_BUILD=ON ${EMBER_CMAKE_ARGS:-} >/dev/null
  cmake --build "$build_dir" --parallel "$(nproc)" "$@"
}

case "${1:-}" in
  demo)
    install_missing_packages
    build_dir=${EMBER_BUILD_DIR:-build-demo}
    EMBER_CMAKE_ARGS="-DEMBER_CUDA=OFF ${EMBER_CMAKE_ARGS:-}" configure_and_build \
      --target chapter first_steps exercise1_memory_leak exercise2_autocast exercise3_hot_spots pitfalls \
      saved_tensors graph_pictures ember_python
    "$build_dir/demos/chapter"
    ;;
  test)
    install_missing_packages
    build_dir=${EMBER_BUILD_DIR:-build}
    configure_and_build
    # --no-tests=error: a build that registered no test is a failure, not a green run.
    ctest --test-dir "$build_dir" --output-on-failure --no-tests=error --parallel "$(nproc)"
    ;;
  *)
    echo "usage: bash tools/ember.sh demo|test" >&2
    exit 2
    ;;
esac
