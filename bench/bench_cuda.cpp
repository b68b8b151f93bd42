// GPU matrix products: ember's mm vs a raw cuBLAS call on the same buffers, in the same run, for
// float32 (TF32 off, PyTorch's default), bf16 and fp16 with float32 accumulation, at 4096³ and
// 8192³. Each side is warmed up, then timed with CUDA events over interleaved rounds; the figure
// is the median. Prints TFLOP/s and the ratio ember / cuBLAS. Then a Linear layer's addmm with
// its bias fused by cublasLt against mm followed by a separate add, and the profiler's table of a
// GPU training step sorted by self CUDA time. Without a GPU it says so and exits.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "ember.h"

using namespace ember;

namespace {

// Milliseconds per call of each run: the median of `rounds` CUDA-event timings of `calls` calls,
// the runs taking turns in every round.
std::vector<double> time_interleaved(const std::vector<std::function<void()>>& runs, int rounds, int calls) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<std::vector<double>> samples(runs.size());
  for (const auto& run : runs)
    for (int i = 0; i < 3; ++i) run();  // warm-up: cuBLAS picks its kernel, the allocator caches
  cudaDeviceSynchronize();
  for (int round = 0; round < rounds; ++round)
    for (size_t k = 0; k < runs.size(); ++k) {
      cudaEventRecord(start);
      for (int i = 0; i < calls; ++i) runs[k]();
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      samples[k].push_back(ms / calls);
    }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::vector<double> medians;
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

cudaDataType_t cuda_type(DType dtype) {
  return dtype == kFloat32 ? CUDA_R_32F : dtype == kBFloat16 ? CUDA_R_16BF : CUDA_R_16F;
}

}  // namespace

int main() {
  if (!cuda::is_available()) {
    std::printf("bench_cuda: no CUDA GPU here, nothing to measure.\n");
    return 0;
  }
  const Device gpu(DeviceType::CUDA, 0);
  cublasHandle_t handle;
  cublasCreate(&handle);
  std::printf("%-10s %6s %14s %14s %15s\n", "dtype", "n", "ember TFLOP/s", "cuBLAS TFLOP/s", "ember / cuBLAS");
  for (int64_t n : {4096, 8192}) {
    for (DType dtype : {kFloat32, kBFloat16, kFloat16}) {
      const Tensor a = randn({n, n}).to(gpu).to(dtype), b = randn({n, n}).to(gpu).to(dtype);
      Tensor out = empty({n, n}, Options(dtype).device(gpu));
      const float one = 1, zero = 0;
      const cudaDataType_t type = cuda_type(dtype);
      auto raw = [&] {  // row-major out = a @ b as column-major out^T = b^T a^T
        cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.raw_data(), type, n, a.raw_data(), type, n,
                     &zero, out.raw_data(), type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      };
      auto ours = [&] { (void)mm(a, b); };
      const int calls = n == 4096 ? 10 : 3;
      const std::vector<double> ms = time_interleaved({ours, raw}, 7, calls);
      const double flop = 2.0 * n * n * n;
      std::printf("%-10s %6lld %14.1f %14.1f %15.3f\n", scalar_type_name(dtype), static_cast<long long>(n),
                  flop / ms[0] / 1e9, flop / ms[1] / 1e9, ms[1] / ms[0]);
    }
  }
  cublasDestroy(handle);

  std::printf("\n%-10s %-22s %12s %14s %8s\n", "dtype", "x @ w.t() + bias", "addmm (ms)", "mm + add (ms)", "ratio");
  for (DType dtype : {kFloat32, kBFloat16}) {
    const int64_t batch = 8192, features = 4096;
    const Tensor x = randn({batch, features}).to(gpu).to(dtype), w = randn({features, features}).to(gpu).to(dtype);
    const Tensor bias = randn({features}).to(gpu).to(dtype);
    auto fused = [&] { (void)addmm(bias, x, w.t()); };
    auto separate = [&] { (void)(mm(x, w.t()) + bias); };
    const std::vector<double> ms = time_interleaved({fused, separate}, 7, 3);
    std::printf("%-10s %-22s %12.3f %14.3f %8.3f\n", scalar_type_name(dtype), "[8192,4096]x[4096,4096]", ms[0], ms[1],
                ms[1] / ms[0]);
  }

  std::printf("\nA profiled training step on the GPU (Linear 4096-4096-10, batch 1024, bf16 autocast):\n");
  nn::Sequential model{nn::Linear(4096, 4096), nn::ReLU(), nn::Linear(4096, 10)};
  model.to(gpu);
  const Tensor inputs = randn({1024, 4096}).to(gpu);
  const Tensor targets = randint(0, 10, {1024}).to(gpu);
  auto step = [&] {
    AutocastGuard autocast(DeviceType::CUDA, kBFloat16);
    cross_entropy(model(inputs), targets).backward();
  };
  step();
  cuda::synchronize();
  profiler::Profiler prof({.activities = {profiler::ProfilerActivity::CPU, profiler::ProfilerActivity::CUDA}});
  step();
  prof.stop();
  std::printf("%s", prof.key_averages().table("self_cuda_time_total", 8).c_str());
}
