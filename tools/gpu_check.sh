#!/usr/bin/env bash
# The GPU check, one command for a bare GPU machine (the device tool's H200: nvcc, CMake, ninja, a
# C++ compiler and Python, but no Debian packages and no network). It
#  1. unpacks .gpu-bundle/ (made here by tools/gpu_bundle.sh: oneDNN, Eigen, Catch2, nlohmann-json
#     and the OpenCL loader oneDNN links) into a private prefix in the build folder, with dpkg -x;
#  2. configures ember against that prefix alone, the system's packages hidden from CMake (so a
#     machine that has them builds from the bundle all the same), for the GPU's own architecture
#     (nvidia-smi's compute capability; sm_90 where no GPU answers), and checks that every package,
#     header and library came from the bundle;
#  3. builds what it runs: ember_tests, bench_cuda and exercises 1 and 2;
#  4. hands over to tools/gpu_run.sh, which stops at once, non-zero, with "no CUDA GPU visible"
#     where the CUDA runtime sees no GPU, and otherwise runs every GPU test case, bench_cuda,
#     exercises 2 and 1 on the GPU and the profiled step's chrome trace.
# Everything lands in one folder, at most 8 files (summary.txt, build.log, tests.log,
# bench_cuda.log, exercises.log, gpu_step_trace.json and the two exercises' charts), and the summary
# is printed last. The exit status is non-zero when no GPU is visible, a case failed or skipped, or
# a step failed. Planned to take under 8 minutes on 16 cores, the build about half of it.
#   bash tools/gpu_check.sh [output folder]      (default gpu-check-output)
#   with the device tool: command "bash tools/gpu_check.sh $OUT/gpu-check", carry [".gpu-bundle"]
# EMBER_BUILD_DIR (default build-gpu) and EMBER_JOBS (default: every core) change the build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bundle=.gpu-bundle
# The one step that cannot be made up on the GPU machine, which reaches no package archive: said
# first, before anything is built or written.
if [ ! -f "$bundle/MANIFEST" ]; then
  cat >&2 <<EOF
gpu_check: no $bundle/ here, and the GPU machine cannot fetch what the build needs. Make it first,
on a machine where apt-get reaches Debian, with the one command
    bash tools/gpu_bundle.sh
then carry $bundle/ to the GPU machine with the working tree: git ignores it, so it travels only
when carried (the device tool: carry [".gpu-bundle"]). CONTRIBUTING.md, "The GPU check", gives the
whole sequence.
EOF
  exit 2
fi
export GPU_CHECK_START=${GPU_CHECK_START:-$(date +%s)}
out=${1:-gpu-check-output}
build=${EMBER_BUILD_DIR:-build-gpu}
jobs=${EMBER_JOBS:-$(nproc)}
mkdir -p "$build"
prefix=$(cd "$build" && pwd)/gpu-bundle-prefix
summary=$out/summary.txt

# The folder holds this script's files alone: earlier ones are replaced, anything else refused.
mkdir -p "$out"
for name in summary.txt build.log tests.log bench_cuda.log exercises.log gpu_step_trace.json \
  exercise1_memory_cuda.png exercise1_memory_cuda.csv exercise2_autocast.png exercise2_autocast.csv; do
  rm -f "$out/$name"
done
if [ -n "$(ls -A "$out")" ]; then
  echo "gpu_check: $out holds other files ($(ls -A "$out" | head -3 | tr '\n' ' ')): give an empty or new folder" >&2
  exit 2
fi

note() { printf '%s\n' "$*" >>"$summary"; }
seconds_since() { echo $(($(date +%s) - $1)); }
stop() {
  note "FAILED: $*"
  echo
  echo "==================== GPU check summary ($summary) ===================="
  cat "$summary"
  exit 1
}
version_of() {
  command -v "$1" >/dev/null && "$1" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | tail -1 || echo missing
}

note "ember GPU check, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
note "machine: $(nproc) cores; cmake $(version_of cmake), ninja $(version_of ninja), c++ $(version_of c++)," \
  "nvcc $(version_of /usr/local/cuda/bin/nvcc | grep -v missing || version_of nvcc)"
if command -v nvidia-smi >/dev/null; then
  gpus=$(nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader 2>&1 | head -1)
else
  gpus="nvidia-smi not found"
fi
note "nvidia-smi: $gpus"

# ---- 1. the bundle ----------------------------------------------------------------------------
echo "== unpacking $bundle into $prefix =="
# dpkg -x where dpkg is; else Python reads the .deb (an ar archive) and extracts its data.tar.*.
unpack_deb() {
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$1" "$2"
  else
    python3 - "$1" "$2" <<'EOF'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"!<arch>\n", "not a .deb"
position = 8
while position < len(data):
    name, size = data[position:position + 16].decode().strip().rstrip("/"), int(data[position + 48:position + 58])
    if name.startswith("data.tar"):
        with tarfile.open(fileobj=io.BytesIO(data[position + 60:position + 60 + size])) as archive:
            archive.extractall(sys.argv[2], **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
    position += 60 + size + size % 2
EOF
  fi
}
began=$(date +%s)
(cd "$bundle" && sha256sum --quiet -c MANIFEST) || stop "$bundle differs from its MANIFEST: make it again with tools/gpu_bundle.sh"
stamp=$(sha256sum "$bundle/MANIFEST" | cut -d' ' -f1)
if [ "$(cat "$prefix/.bundle-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$prefix" && mkdir -p "$prefix"
  while read -r _ deb; do unpack_deb "$bundle/$deb" "$prefix" || stop "could not unpack $deb"; done <"$bundle/MANIFEST"
  echo "$stamp" >"$prefix/.bundle-stamp"
fi
library=$(find "$prefix" -name 'libdnnl.so.*' -print -quit)
[ -n "$library" ] || stop "the bundle holds no libdnnl.so"
library_dir=$(dirname "$library")
# libdnnl.so.2 finds libOpenCL.so.1 here, at build time (Catch's test discovery runs ember_tests) and after.
export LD_LIBRARY_PATH=$library_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
note "bundle: $(wc -l <"$bundle/MANIFEST") packages, $(du -ck "$bundle"/*.deb | tail -1 | cut -f1) KiB," \
  "unpacked into $build/gpu-bundle-prefix ($(seconds_since "$began") s)"

# ---- 2. configure -----------------------------------------------------------------------------
capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
if [[ $capability =~ ^[0-9]+$ ]]; then
  architecture=$capability
  why_architecture="this GPU's"
else
  architecture=90
  why_architecture="no GPU answered nvidia-smi: an H100's and H200's"
fi
echo "== configuring $build for sm_$architecture, the system's packages hidden =="
began=$(date +%s)
# CMAKE_IGNORE_PREFIX_PATH hides every package under /usr, /usr/local and / (the same files on a
# merged-/usr system); CMAKE_PREFIX_PATH and OPENCLROOT (read by oneDNN's FindOpenCL) name the
# bundle. The bundled config files locate themselves: nothing in them points back to /usr.
# CMAKE_POLICY_VERSION_MINIMUM lets CMake 4 read their cmake_policy(VERSION 2.8.3...3.22) lines.
# librt is the C library's, not a package: FindCUDAToolkit gets it as the linker's -lrt.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$architecture" \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_IGNORE_PREFIX_PATH="/usr;/usr/local;/" -DOPENCLROOT="$prefix/usr" \
  -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCUDAToolkit_rt_LIBRARY=rt --no-warn-unused-cli >"$out/build.log" 2>&1 ||
  { tail -25 "$out/build.log"; stop "cmake could not configure (build.log)"; }
cache=$build/CMakeCache.txt
cached() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
make_program=$(cached CMAKE_MAKE_PROGRAM)
"$make_program" -C "$build" -t query bench_cuda >/dev/null 2>&1 ||
  stop "CMake found no CUDA compiler (nvcc), so there is no bench_cuda: nothing to build for a GPU"
for variable in dnnl_DIR Eigen3_DIR Catch2_DIR nlohmann_json_DIR OpenCL_INCLUDE_DIR OpenCL_LIBRARY; do
  value=$(cached $variable)
  [[ $value == "$prefix"/* ]] || stop "CMake took $variable from '$value', not from the bundle"
done
note "configure: sm_$architecture ($why_architecture); oneDNN, Eigen, Catch2, nlohmann-json and OpenCL found in" \
  "the bundle, the system's hidden ($(seconds_since "$began") s)"

# ---- 3. build ---------------------------------------------------------------------------------
targets=(ember_tests bench_cuda exercise1_memory_leak exercise2_autocast)
echo "== building ${targets[*]} with $jobs jobs (build.log) =="
began=$(date +%s)
cmake --build "$build" --parallel "$jobs" --target "${targets[@]}" >>"$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; stop "the build failed after $(seconds_since "$began") s (build.log)"; }
built_in=$(seconds_since "$began")
# Every header the compilers read (ninja's record of them) and every library the programs load
# comes from the bundle where the system has its own copy.
outside=$("$make_program" -C "$build" -t deps 2>/dev/null |
  grep -E '^ +/usr/(local/)?include/(dnnl|oneapi/|eigen3/|catch2/|nlohmann/|CL/)' | sort -u | head -3)
[ -z "$outside" ] || stop "the build read headers outside the bundle: ${outside//$'\n'/ }"
for program in tests/ember_tests bench/bench_cuda; do
  while read -r library; do
    [[ $library == *"$prefix"/* ]] || stop "$program loads $library, not the bundle's"
  done < <(ldd "$build/$program" | grep -E 'libdnnl|libOpenCL')
done
note "build: ${targets[*]} with $jobs jobs in $built_in s; every oneDNN, Eigen, Catch2, nlohmann-json and" \
  "OpenCL header and library from the bundle"

# ---- 4. the GPU -------------------------------------------------------------------------------
echo "== the GPU: gate, test cases, bench_cuda, exercises (tools/gpu_run.sh) =="
exec bash tools/gpu_run.sh "$build" "$out"
