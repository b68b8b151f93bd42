#!/usr/bin/env bash
# The GPU check: on a machine with an NVIDIA GPU (an H200 when the device tool lends one), build
# ember with CUDA and run what this machine's CPU-only CI cannot: every CUDA test case, the GEMM
# benchmark against raw cuBLAS (fp32/bf16/fp16 at 4096³ and 8192³), the fused-bias addmm and a
# profiled GPU training step (Self CUDA columns), the chapter's exercise 2 on
# the GPU (fp32 vs fp16/bf16 autocast: speedup and max error) and exercise 1's memory curve on the
# GPU. Meant to finish well under 10 minutes. Usage: bash tools/gpu_check.sh [output folder]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-check-output}
build=${EMBER_BUILD_DIR:-build-gpu}
mkdir -p "$out"

echo "== the GPU =="
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "nvidia-smi not found"

echo "== configure and build (CUDA architecture of this GPU) =="
missing=()
for p in cmake ninja-build g++ libeigen3-dev libdnnl-dev catch2 nlohmann-json3-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "gpu_check: missing Debian packages: ${missing[*]} (install them, or run bash tools/ember.sh test once)"
  exit 1
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target ember_tests bench_cuda exercise1_memory_leak exercise2_autocast

echo "== the CUDA test cases (every op forward and backward against PyTorch, memory, TF32, products) =="
"$build/tests/ember_tests" "[cuda],[caching_allocator]"

echo "== GEMM: ember vs raw cuBLAS =="
"$build/bench/bench_cuda"

echo "== exercise 2 on the GPU: fp32 vs autocast =="
"$build/demos/exercise2_autocast" "$out"

echo "== exercise 1 on the GPU: memory per step, keeping loss vs loss.item() =="
"$build/demos/exercise1_memory_leak" "$out"
