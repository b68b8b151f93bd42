// GPU matrix products: ember's mm vs a raw cuBLAS call on the same buffers, in the same run, for
// float32 (TF32 off, PyTorch's default), bf16 and fp16 with float32 accumulation, at 4096³ and
// 8192³. Each side is warmed up (cuBLAS picks its kernel, the first launch loads it, the
// allocator caches), then timed with CUDA events over interleaved rounds; the figure is the
// median. Prints TFLOP/s, the ratio ember / cuBLAS and how far ember's result is from cuBLAS's.
// Then a Linear layer's addmm with its bias fused by cublasLt against mm followed by a separate
// add, and a profiled GPU training step (after one unprofiled step, so no first-launch cost is
// timed): the profiler's table sorted by self CUDA time, and its chrome trace with the GPU
// intervals, written to the output folder.
//   bench_cuda [output folder]   (default .)   the benchmark; exits 1 when something failed
//   bench_cuda --device                         the GPU the CUDA runtime sees, or exit 1: none
// Without a GPU either form says "no CUDA GPU visible" and exits 1 (tools/gpu_run.sh's gate).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ember.h"

using namespace ember;

namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error(std::string(what) + " failed with status " + std::to_string(status));
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(status));
}

// Milliseconds per call of each run: the median of `rounds` CUDA-event timings of `calls` calls,
// the runs taking turns in every round, after three untimed calls of each.
std::vector<double> time_interleaved(const std::vector<std::function<void()>>& runs, int rounds, int calls) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<std::vector<double>> samples(runs.size());
  for (const auto& run : runs)
    for (int i = 0; i < 3; ++i) run();  // warm-up: cuBLAS picks its kernel, the allocator caches
  check(cudaDeviceSynchronize(), "warm-up");
  for (int round = 0; round < rounds; ++round)
    for (size_t k = 0; k < runs.size(); ++k) {
      check(cudaEventRecord(start), "cudaEventRecord");
      for (int i = 0; i < calls; ++i) runs[k]();
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "timed calls");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      samples[k].push_back(ms / calls);
    }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  std::vector<double> medians;
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
    medians.push_back(s[s.size() / 2]);
  }
  return medians;
}

// The largest difference between two results of the same product, relative to the largest value.
double relative_difference(const Tensor& ours, const Tensor& theirs) {
  const std::vector<float> a = ours.to(kCPU).to_vector<float>(), b = theirs.to(kCPU).to_vector<float>();
  double largest_difference = 0, largest = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double difference = std::fabs(static_cast<double>(a[i]) - b[i]);
    largest_difference = std::isnan(difference) ? INFINITY : std::max(largest_difference, difference);
    largest = std::max(largest, std::fabs(static_cast<double>(b[i])));
  }
  return largest_difference / largest;
}

cudaDataType_t cuda_type(DType dtype) {
  return dtype == kFloat32 ? CUDA_R_32F : dtype == kBFloat16 ? CUDA_R_16BF : CUDA_R_16F;
}

void products_against_cublas(const Device& gpu) {
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  // As ember's handle (cuda/matmul.cu): split sums over K added in float32.
  check(cublasSetMathMode(handle, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), "cublasSetMathMode");
  std::printf("%-10s %6s %14s %14s %15s %14s\n", "dtype", "n", "ember TFLOP/s", "cuBLAS TFLOP/s", "ember / cuBLAS",
              "max rel diff");
  for (int64_t n : {4096, 8192}) {
    const Tensor a32 = randn({n, n}).to(gpu), b32 = randn({n, n}).to(gpu);
    for (DType dtype : {kFloat32, kBFloat16, kFloat16}) {
      const Tensor a = a32.to(dtype), b = b32.to(dtype);
      Tensor out = empty({n, n}, Options(dtype).device(gpu));
      const float one = 1, zero = 0;
      const cudaDataType_t type = cuda_type(dtype);
      const int size = static_cast<int>(n);
      auto raw = [&] {  // row-major out = a @ b as column-major out^T = b^T a^T
        check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one, b.raw_data(), type, size,
                           a.raw_data(), type, size, &zero, out.raw_data(), type, size, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
      };
      auto ours = [&] { (void)mm(a, b); };
      const int calls = n == 4096 ? 10 : 3;
      const std::vector<double> ms = time_interleaved({ours, raw}, 7, calls);
      const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
      std::printf("%-10s %6lld %14.1f %14.1f %15.3f %14.2g\n", scalar_type_name(dtype), static_cast<long long>(n),
                  flop / ms[0] / 1e9, flop / ms[1] / 1e9, ms[1] / ms[0], relative_difference(mm(a, b), out));
    }
  }
  cublasDestroy(handle);
}

void fused_bias(const Device& gpu) {
  std::printf("\n%-10s %-24s %12s %14s %8s %14s\n", "dtype", "x @ w.t() + bias", "addmm (ms)", "mm + add (ms)", "ratio",
              "max rel diff");
  for (DType dtype : {kFloat32, kBFloat16}) {
    const int64_t batch = 8192, features = 4096;
    const Tensor x = randn({batch, features}).to(gpu).to(dtype), w = randn({features, features}).to(gpu).to(dtype);
    const Tensor bias = randn({features}).to(gpu).to(dtype);
    auto fused = [&] { (void)addmm(bias, x, w.t()); };
    auto separate = [&] { (void)(mm(x, w.t()) + bias); };
    const std::vector<double> ms = time_interleaved({fused, separate}, 7, 3);
    std::printf("%-10s %-24s %12.3f %14.3f %8.3f %14.2g\n", scalar_type_name(dtype), "[8192,4096]x[4096,4096]", ms[0],
                ms[1], ms[1] / ms[0], relative_difference(addmm(bias, x, w.t()), mm(x, w.t()) + bias));
  }
}

void profiled_training_step(const Device& gpu, const std::string& folder) {
  std::printf("\nA profiled training step on the GPU (Linear 4096-4096-10, batch 1024, bf16 autocast, SGD):\n");
  nn::Sequential model{nn::Linear(4096, 4096), nn::ReLU(), nn::Linear(4096, 10)};
  model->to(gpu);
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.01));
  const Tensor inputs = randn({1024, 4096}).to(gpu);
  const Tensor targets = randint(0, 10, {1024}).to(gpu);
  auto step = [&] {
    optimizer.zero_grad();
    {
      AutocastGuard autocast(DeviceType::CUDA, kBFloat16);
      cross_entropy(model(inputs), targets).backward();
    }
    optimizer.step();
  };
  step();  // warm-up: every kernel of the step launched (and loaded) once, outside the profile
  cuda::synchronize();
  profiler::Profiler prof({.activities = {profiler::ProfilerActivity::CPU, profiler::ProfilerActivity::CUDA}});
  step();
  prof.stop();
  std::printf("%s", prof.key_averages().table("self_cuda_time_total", 8).c_str());
  size_t with_gpu_interval = 0;
  for (const profiler::Event& event : prof.events().events()) with_gpu_interval += event.cuda_start_ns >= 0;
  const std::string trace = folder + "/gpu_step_trace.json";
  prof.export_chrome_trace(trace);
  std::printf("wrote %s: %zu events, %zu with a GPU interval (open it at ui.perfetto.dev)\n", trace.c_str(),
              prof.events().events().size(), with_gpu_interval);
  if (with_gpu_interval == 0) throw Error("the profiled step recorded no GPU interval");
}

// The GPU the runtime sees, in one line.
std::string describe(int device) {
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  char line[512];
  std::snprintf(
      line, sizeof line,
      "cuda:%d %s, compute capability %d.%d, %d multiprocessors, %.1f GiB; driver's CUDA %d.%d, runtime %d.%d", device,
      properties.name, properties.major, properties.minor, properties.multiProcessorCount,
      static_cast<double>(properties.totalGlobalMem) / (1 << 30), driver / 1000, driver % 1000 / 10, runtime / 1000,
      runtime % 1000 / 10);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string argument = argc > 1 ? argv[1] : ".";
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::printf("bench_cuda: no CUDA GPU visible (CUDA runtime: %s)\n",
                status != cudaSuccess ? cudaGetErrorString(status) : "it counts no device");
    return 1;
  }
  try {
    if (argument == "--device") {
      std::printf("%s\n", describe(0).c_str());
      return 0;
    }
    const Device gpu(DeviceType::CUDA, 0);
    std::printf("%s\n\n", describe(0).c_str());
    products_against_cublas(gpu);
    fused_bias(gpu);
    profiled_training_step(gpu, argument);
  } catch (const std::exception& e) {
    std::printf("\nbench_cuda: stopped: %s\n", e.what());
    return 1;
  }
}
