// The roofline verdict: an op is compute-bound when its FLOPs at peak take longest, memory-bound
// when its bytes at peak bandwidth do, and overhead-bound when it took far longer than both.
// The machine's figures are given explicitly here (a modest CPU: 100 GFLOP/s, 10 GB/s), so the
// tests neither depend on a calibration cache nor write one outside /tmp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ember.h"
#include "skip.h"

using namespace ember;
using profiler::Bound;
using profiler::MachinePeaks;

namespace {

const MachinePeaks kModestCpu{1e11, 1e10};

profiler::EventAverage row_of(const profiler::KeyAverages& averages, const std::string& key) {
  for (const profiler::EventAverage& row : averages)
    if (row.key == key) return row;
  FAIL("no row " << key);
  return {};
}

std::string temporary_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ember_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST_CASE("the roofline calls a 2048³ mm compute-bound, a 10⁷-element add memory-bound, a 1-element add "
          "overhead-bound",
          "[profiler][serial]") {
  if (skip::under_sanitizer("the verdicts time real ops")) return;
  Tensor a = ones({2048, 2048}), b = ones({2048, 2048});
  Tensor x = ones({10'000'000}), y = ones({10'000'000});
  Tensor one = ones({1});
  profiler::Profiler prof({.with_flops = true});
  Tensor product = a.mm(b);
  Tensor big_sum = x + y;
  Tensor tiny_sum = one - one;
  prof.stop();
  const profiler::KeyAverages averages = prof.key_averages();

  const profiler::EventAverage mm = row_of(averages, "aten::mm");
  CHECK(mm.flops == 2LL * 2048 * 2048 * 2048);
  CHECK(mm.bytes_read + mm.bytes_written == 3LL * 2048 * 2048 * 4);
  const profiler::Verdict mm_verdict = profiler::roofline_verdict(mm, kModestCpu);
  INFO("mm took " << mm_verdict.seconds << " s, " << mm_verdict.compute_seconds << " s at peak FLOP/s");
  CHECK(mm_verdict.bound == Bound::Compute);

  const profiler::EventAverage add = row_of(averages, "aten::add");
  CHECK(add.bytes_read + add.bytes_written == 3LL * 10'000'000 * 4);
  const profiler::Verdict add_verdict = profiler::roofline_verdict(add, kModestCpu);
  INFO("add took " << add_verdict.seconds << " s, " << add_verdict.memory_seconds << " s at peak bandwidth");
  CHECK(add_verdict.bound == Bound::Memory);

  CHECK(profiler::roofline_verdict(row_of(averages, "aten::sub"), kModestCpu).bound == Bound::Overhead);
}

TEST_CASE("the verdict names the larger bound, unless the time is far above both", "[profiler]") {
  // 1 GFLOP and 10 MB: 10 ms of arithmetic, 1 ms of memory traffic on the modest CPU.
  CHECK(profiler::roofline_verdict(1e9, 1e7, 0.012, kModestCpu).bound == Bound::Compute);
  CHECK(profiler::roofline_verdict(1e6, 1e8, 0.012, kModestCpu).bound == Bound::Memory);
  CHECK(profiler::roofline_verdict(1e6, 1e8, 0.099, kModestCpu).bound == Bound::Memory);
  CHECK(profiler::roofline_verdict(1e6, 1e8, 0.101, kModestCpu).bound == Bound::Overhead);  // > 10x its 10 ms
  CHECK(profiler::roofline_verdict(0, 0, 1e-6, kModestCpu).bound == Bound::Overhead);       // a view: no work at all
  const profiler::Verdict verdict = profiler::roofline_verdict(1e9, 1e7, 0.012, kModestCpu);
  CHECK(verdict.compute_seconds == Approx(0.01));
  CHECK(verdict.memory_seconds == Approx(0.001));
  CHECK(std::string(profiler::to_string(Bound::Memory)) == "memory-bound");
}

TEST_CASE("the roofline table lists the top ops by self time with their verdicts and the machine's figures",
          "[profiler]") {
  profiler::Profiler prof({.with_flops = true});
  Tensor product = ones({256, 256}).mm(ones({256, 256}));
  Tensor view = product.t();
  prof.stop();
  const std::string table = profiler::roofline_table(prof.key_averages(), kModestCpu);
  CHECK(table.rfind("Roofline on this machine: 100.0 GFLOP/s (float32 matmul), 10.0 GB/s (copy)\n", 0) == 0);
  CHECK(table.find("aten::mm") != std::string::npos);
  CHECK(table.find("aten::transpose") != std::string::npos);
  CHECK(table.find("overhead-bound") != std::string::npos);  // the views
  CHECK(profiler::roofline_table(prof.key_averages(), kModestCpu, 1).find("aten::t ") == std::string::npos);
}

TEST_CASE("machine figures are read from the cache file when it holds them for this thread count", "[profiler]") {
  const std::string path = temporary_path("peaks.json");
  std::ofstream(path) << R"({"flops_per_second": 1.5e11, "bytes_per_second": 2.5e10, "threads": )" << get_num_threads()
                      << "}\n";
  const MachinePeaks peaks = profiler::machine_peaks(path);
  std::filesystem::remove(path);
  CHECK(peaks.flops_per_second == 1.5e11);
  CHECK(peaks.bytes_per_second == 2.5e10);
}

TEST_CASE("without a usable cache the machine is calibrated once and the figures are cached", "[profiler]") {
  const std::string path = temporary_path("cache_dir") + "/peaks.json";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << R"({"flops_per_second": 1.5e11, "bytes_per_second": 2.5e10, "threads": )"
                      << get_num_threads() + 1 << "}\n";  // measured with another thread count
  const MachinePeaks measured = profiler::machine_peaks(path);
  CHECK(measured.flops_per_second != 1.5e11);
  CHECK(measured.flops_per_second > 1e8);  // any CPU that runs this suite does 0.1 GFLOP/s
  CHECK(measured.bytes_per_second > 1e7);
  const MachinePeaks cached = profiler::machine_peaks(path);
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  CHECK(cached.flops_per_second == measured.flops_per_second);
  CHECK(cached.bytes_per_second == measured.bytes_per_second);
}

TEST_CASE("the machine figures print with their units", "[profiler]") {
  CHECK(profiler::to_string(MachinePeaks{9.84e10, 1.12e10}) == "98.4 GFLOP/s (float32 matmul), 11.2 GB/s (copy)");
}
