// The profiler's GPU side: the CUDA activity times each op on the GPU with CUDA events (PyTorch's
// legacy use_cuda profiler), and EmitNvtx names ranges for Nsight Systems. What a machine without
// a GPU (or a build without CUDA) does instead is PyTorch's behaviour too: a warning, an error.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "captured_warnings.h"
#include "fixture.h"
#include "skip.h"
#ifdef EMBER_WITH_CUDA
#include "cuda/blas_handles.h"
#endif

using namespace ember;
using profiler::Profiler;
using profiler::ProfilerActivity;

namespace {

profiler::EventAverage row(const profiler::KeyAverages& averages, const std::string& key) {
  for (const profiler::EventAverage& average : averages)
    if (average.key == key) return average;
  FAIL("no row " << key);
  return {};
}

}  // namespace

TEST_CASE("asking for the CUDA activity without a GPU warns and records CPU events only", "[profiler]") {
  if (skip::with_gpu()) return;
  CapturedWarnings warnings;
  Profiler prof({.activities = {ProfilerActivity::CPU, ProfilerActivity::CUDA}});
  Tensor y = ones({2}).exp();
  prof.stop();
  CHECK(warnings.texts == std::vector<std::string>{"CUDA is not available, disabling CUDA profiling"});
  CHECK(row(prof.key_averages(), "aten::exp").count == 1);
  for (const profiler::Event& event : prof.events().events()) CHECK(event.cuda_start_ns == -1);
  CHECK(prof.key_averages().table().find("CUDA") == std::string::npos);
}

TEST_CASE("emit_nvtx in a build without CUDA raises PyTorch's error", "[profiler][errors]") {
  if (cuda::is_built()) {
    WARN(skip::kSkipped << " ember is built with CUDA, where emit_nvtx works");
    return;
  }
  CHECK_THROWS_WITH(profiler::EmitNvtx(), "Torch not compiled with CUDA enabled");
  CHECK_FALSE(profiler::detail::recording.load());
}

TEST_CASE("a profile taken inside emit_nvtx records as usual, and recording ends with both", "[profiler]") {
  if (!cuda::is_built()) {
    WARN(skip::kSkipped << " ember is built without CUDA, where emit_nvtx raises");
    return;
  }
  {
    profiler::EmitNvtx nvtx;  // no tool attached: the ranges cost nothing and show nowhere
    CHECK(profiler::detail::recording.load());
    Profiler prof;
    Tensor y = ones({2}).exp();
    prof.stop();
    CHECK(profiler::detail::recording.load());  // the NVTX ranges go on
    CHECK(row(prof.key_averages(), "aten::exp").count == 1);
    Tensor z = y.exp();  // recorded by nobody, named for NVTX
  }
  CHECK_FALSE(profiler::detail::recording.load());
}

TEST_CASE("with the CUDA activity each GPU op gets its GPU time, and the table its CUDA columns",
          "[cuda][profiler][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  const Tensor a = randn({2048, 2048}).to(gpu), b = randn({2048, 2048}).to(gpu);
  Tensor warm_up = mm(a, b).relu();  // each kernel's first launch loads it: not in the profile
  cuda::synchronize();
  Profiler prof({.activities = {ProfilerActivity::CPU, ProfilerActivity::CUDA}});
  Tensor c = mm(a, b).relu();
  prof.stop();
  const profiler::KeyAverages averages = prof.key_averages();
  const profiler::EventAverage product = row(averages, "aten::mm");
  // 2·2048³ FLOPs take well over 10 us on any GPU, and the CPU returns before the GPU finishes.
  CHECK(product.self_cuda_time_total > 10.0);
  CHECK(product.self_cuda_time_total == product.cuda_time_total);  // mm calls no other op
  for (const profiler::Event& event : prof.events().events()) {
    CHECK(event.cuda_start_ns >= 0);
    CHECK(event.cuda_end_ns >= event.cuda_start_ns);
    CHECK(prof.events().self_cuda_time_ns(event) >= 0);
  }
  const std::string table = averages.table("self_cuda_time_total", 3);
  CHECK(table.find("Self CUDA %") != std::string::npos);
  CHECK(table.find("Self CUDA time total: ") != std::string::npos);
  CHECK(table.find("aten::mm") < table.find("aten::relu"));
}

TEST_CASE("a CUDA profile makes cuBLAS's handles as it starts, so no op's GPU time includes them",
          "[cuda][profiler][gpu]") {
  if (skip::without_gpu()) return;
#ifdef EMBER_WITH_CUDA
  // In a process of its own (as CTest and tools/gpu_check.sh run each case) no product has run yet.
  Profiler prof({.activities = {ProfilerActivity::CPU, ProfilerActivity::CUDA}});
  CHECK(kernels::cuda::blas_handles_created(0));
  prof.stop();
#endif
}

TEST_CASE("with the CUDA activity the chrome trace draws each op's GPU interval on a GPU 0 row",
          "[cuda][profiler][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  nn::Linear layer(64, 32);
  layer->to(gpu);
  const Tensor x = randn({128, 64}).to(gpu);
  layer(x).relu().sum().backward();  // warm-up
  cuda::synchronize();
  Profiler prof({.activities = {ProfilerActivity::CPU, ProfilerActivity::CUDA}});
  layer(x).relu().sum().backward();
  prof.stop();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ember_" + std::to_string(::getpid()) + "_gpu_trace.json")).string();
  prof.export_chrome_trace(path);
  fixture::json trace;
  std::ifstream(path) >> trace;
  std::filesystem::remove(path);

  std::set<std::string> cpu_ops;
  std::vector<fixture::json> gpu_intervals;
  bool gpu_row_named = false;
  for (const fixture::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["pid"] == 0 && e["args"]["name"] == "GPU 0") gpu_row_named = true;
    if (e["ph"] == "X" && e["cat"] == "cpu_op") cpu_ops.insert(e["name"].get<std::string>());
    if (e["ph"] == "X" && e["cat"] == "gpu_user_annotation") gpu_intervals.push_back(e);
  }
  CHECK(gpu_row_named);
  size_t with_gpu_time = 0;
  for (const profiler::Event& event : prof.events().events()) with_gpu_time += event.cuda_start_ns >= 0;
  CHECK(gpu_intervals.size() == with_gpu_time);
  CHECK(with_gpu_time == prof.events().events().size());
  for (const fixture::json& e : gpu_intervals) {
    INFO(e.dump());
    CHECK(e["pid"] == 0);
    CHECK(cpu_ops.count(e["name"].get<std::string>()) == 1);
    CHECK(e["ts"].get<double>() >= 0);
    CHECK(e["dur"].get<double>() >= 0);
  }
  CHECK(cpu_ops.count("aten::addmm") == 1);
}
