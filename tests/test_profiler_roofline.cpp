// The roofline verdict: an op is compute-bound when its FLOPs at peak take longest, memory-bound
// when its bytes at peak bandwidth do, and overhead-bound when it took far longer than both.
// The machine's figures are given explicitly here (a modest CPU: 100 GFLOP/s, 10 GB/s), so the
// tests neither depend on a calibration cache nor write one outside /tmp. No timing decides a
// verdict here: the FLOPs and bytes are counted from real ops, the times are chosen; the tests
// that calibrate accept either answer to "was the machine busy?" and check what follows from it.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

TEST_CASE("from their counted FLOPs and bytes the roofline calls a 2048³ mm compute-bound, a 10⁷-element add "
          "memory-bound, a 1-element add overhead-bound",
          "[profiler]") {
  // The counts come from a real profile; the times are chosen, so no timing decides the verdicts:
  // an op is judged on its bounds at any time up to kOverheadFactor times the larger one.
  Tensor a = ones({2048, 2048}), b = ones({2048, 2048});
  Tensor x = ones({10'000'000}), y = ones({10'000'000});
  Tensor one = ones({1});
  profiler::Profiler prof({.with_flops = true});
  Tensor product = a.mm(b);
  Tensor big_sum = x + y;
  Tensor tiny_sum = one - one;
  prof.stop();
  const profiler::KeyAverages averages = prof.key_averages();
  auto verdict_at = [](const profiler::EventAverage& row, double times_its_bound) {
    const double flops = static_cast<double>(row.flops),
                 bytes = static_cast<double>(row.bytes_read + row.bytes_written);
    const profiler::Verdict at_peak = profiler::roofline_verdict(flops, bytes, 0, kModestCpu);
    const double bound = std::max(at_peak.compute_seconds, at_peak.memory_seconds);
    return profiler::roofline_verdict(flops, bytes, times_its_bound * bound, kModestCpu).bound;
  };

  const profiler::EventAverage mm = row_of(averages, "aten::mm");
  CHECK(mm.flops == 2LL * 2048 * 2048 * 2048);
  CHECK(mm.bytes_read + mm.bytes_written == 3LL * 2048 * 2048 * 4);
  for (double times : {1.0, 3.0, 9.9}) CHECK(verdict_at(mm, times) == Bound::Compute);
  CHECK(verdict_at(mm, 10.1) == Bound::Overhead);

  const profiler::EventAverage add = row_of(averages, "aten::add");
  CHECK(add.bytes_read + add.bytes_written == 3LL * 10'000'000 * 4);
  for (double times : {1.0, 3.0, 9.9}) CHECK(verdict_at(add, times) == Bound::Memory);
  CHECK(verdict_at(add, 10.1) == Bound::Overhead);

  // 12 bytes and 1 FLOP: 1.2 ns at the modest CPU's bandwidth. A call through the dispatcher takes
  // far longer than 10 times that on any machine; a microsecond is overhead-bound.
  const profiler::EventAverage sub = row_of(averages, "aten::sub");
  CHECK(sub.bytes_read + sub.bytes_written == 3 * 4);
  CHECK(profiler::roofline_verdict(sub, kModestCpu).memory_seconds < 1e-8);
  CHECK(profiler::roofline_verdict(1, 12, 1e-6, kModestCpu).bound == Bound::Overhead);
}

TEST_CASE("the calibration's add_ and copy_ of n floats move 12n bytes in the profiler's count", "[profiler]") {
  // calibrate() times them with that count, so an op's bytes and the peaks are counted alike.
  Tensor target = ones({1000}), source = ones({1000});
  profiler::Profiler prof({.with_flops = true});
  target.add_(source);
  target.copy_(source);
  prof.stop();
  for (const char* key : {"aten::add_", "aten::copy_"}) {
    const profiler::EventAverage row = row_of(prof.key_averages(), key);
    INFO(key);
    CHECK(row.bytes_read + row.bytes_written == 12 * 1000);
  }
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
  CHECK_FALSE(verdict.faster_than_peaks());
  CHECK(profiler::roofline_verdict(1e9, 1e7, 0.009, kModestCpu).faster_than_peaks());  // 1 GFLOP in 9 ms
  CHECK(profiler::roofline_verdict(1e6, 1e8, 0.009, kModestCpu).faster_than_peaks());  // 100 MB in 9 ms
}

TEST_CASE("an op's bytes meet the bandwidth measured at the largest size not above its own", "[profiler]") {
  // Caches move small working sets faster than the DRAM moves large ones.
  const MachinePeaks peaks{1e11, 1e10, {{1e5, 2e11}, {1e6, 1.5e11}, {1e7, 5e10}, {1e8, 1e10}}};
  CHECK(profiler::bandwidth_for(peaks, 1e3) == 2e11);  // smaller than any size measured: the smallest's
  CHECK(profiler::bandwidth_for(peaks, 1e5) == 2e11);
  CHECK(profiler::bandwidth_for(peaks, 5e6) == 1.5e11);
  CHECK(profiler::bandwidth_for(peaks, 1e7) == 5e10);
  CHECK(profiler::bandwidth_for(peaks, 1e9) == 1e10);  // beyond every cache: the DRAM's
  // Where a larger size measured faster (noise), the roof takes the faster figure.
  const MachinePeaks noisy{1e11, 1e10, {{1e5, 1e11}, {1e6, 1.5e11}, {1e7, 5e10}}};
  CHECK(profiler::bandwidth_for(noisy, 2e5) == 1.5e11);
  CHECK(profiler::bandwidth_for(MachinePeaks{1e11, 1e10}, 1e3) == 1e10);  // no sizes: one figure for all
  // A 4 MB op at this machine's roof: 4e6 / 1.5e11 s, not 4e6 / 1e10.
  CHECK(profiler::roofline_verdict(0, 4e6, 1e-4, peaks).memory_seconds == Approx(4e6 / 1.5e11));
}

TEST_CASE("the roofline table lists the top ops by self time with their verdicts and the machine's figures",
          "[profiler]") {
  profiler::Profiler prof({.with_flops = true});
  Tensor product = ones({256, 256}).mm(ones({256, 256}));
  Tensor view = product.t();
  prof.stop();
  const std::string table = profiler::roofline_table(prof.key_averages(), kModestCpu);
  CHECK(table.rfind("Roofline on this machine: 100.0 GFLOP/s (float32 matmul), 10.0 GB/s (memory)\n", 0) == 0);
  CHECK(table.find("aten::mm") != std::string::npos);
  CHECK(table.find("aten::transpose") != std::string::npos);
  CHECK(profiler::roofline_table(prof.key_averages(), kModestCpu, 1).find("aten::t ") == std::string::npos);
}

namespace {
// The verdict column of `name`'s row in a roofline table.
std::string verdict_of(const std::string& table, const std::string& name) {
  const size_t start = table.find(name + "  ");
  if (start == std::string::npos) return "(no row)";
  const std::string row = table.substr(start, table.find('\n', start) - start);
  return row.substr(row.find_last_of(' ') + 1);
}
}  // namespace

TEST_CASE("the roofline judges only ops with FLOPs or bytes: ranges, autograd wrappers, views and composites get none",
          "[profiler]") {
  Tensor w = ones({64, 64}).requires_grad_(), x = ones({32, 64});
  profiler::Profiler prof({.with_flops = true});
  {
    auto range = profiler::record_function("my range");
    linear(x, w, Tensor()).sum().backward();
  }
  prof.stop();
  const std::string table = profiler::roofline_table(prof.key_averages(), kModestCpu, 100);
  INFO(table);
  for (const char* none : {"my range", "aten::linear", "aten::t", "aten::transpose", "aten::as_strided",
                           "autograd::engine::evaluate_function: MmBackward0", "MmBackward0"})
    CHECK(verdict_of(table, none) == "--");
  for (const char* judged : {"aten::mm", "aten::sum"}) {  // a verdict, whichever this machine gives
    CHECK(verdict_of(table, judged) != "--");
    CHECK(verdict_of(table, judged) != "(no row)");
  }
  for (const profiler::EventAverage& row : prof.key_averages())
    CHECK(profiler::has_roofline(row) == (row.flops > 0 || row.bytes_read + row.bytes_written > 0));
}

namespace {

MachinePeaks quiet_figures() { return {1.5e11, 2.5e10, {{1e5, 1e11}, {1e8, 2.5e10}}, MachineLoad{}, "2025-01-31"}; }

nlohmann::json cache_file(const std::string& path) {
  std::ifstream file(path);
  return nlohmann::json::parse(file);
}

void write_cache_file(const std::string& path, const nlohmann::json& figures) { std::ofstream(path) << figures.dump(); }

}  // namespace

TEST_CASE("machine figures are read back from the cache for this CPU model, thread count and method", "[profiler]") {
  const std::string path = temporary_path("peaks.json");
  REQUIRE(profiler::store_machine_peaks(path, quiet_figures()));
  const nlohmann::json file = cache_file(path);
  CHECK(file["cpu_model"] == profiler::cpu_model());
  CHECK(file["threads"] == get_num_threads());
  const MachinePeaks peaks = profiler::machine_peaks(path);
  std::filesystem::remove(path);
  CHECK(peaks.flops_per_second == 1.5e11);
  CHECK(peaks.bytes_per_second == 2.5e10);
  REQUIRE(peaks.bandwidth_by_size.size() == 2);
  CHECK(peaks.bandwidth_by_size[0].traffic_bytes == 1e5);
  CHECK(peaks.bandwidth_by_size[0].bytes_per_second == 1e11);
  CHECK(peaks.measured_on == "2025-01-31");
}

TEST_CASE("cached figures from another CPU model, thread count or method, or too old, do not apply", "[profiler]") {
  const std::string path = temporary_path("stale_peaks.json");
  REQUIRE(profiler::store_machine_peaks(path, quiet_figures()));
  const nlohmann::json fresh = cache_file(path);
  CHECK(profiler::read_machine_peaks(path).has_value());
  auto read_with = [&](const char* field, const nlohmann::json& value) {
    nlohmann::json changed = fresh;
    changed[field] = value;
    write_cache_file(path, changed);
    return profiler::read_machine_peaks(path).has_value();
  };
  CHECK_FALSE(read_with("cpu_model", "another CPU"));
  CHECK_FALSE(read_with("threads", get_num_threads() + 1));
  CHECK_FALSE(read_with("method", "a 64 MiB copy"));
  const double day = 86400;
  CHECK_FALSE(
      read_with("measured_at", fresh["measured_at"].get<double>() - (profiler::kCalibrationMaxAgeDays + 1) * day));
  CHECK(read_with("measured_at", fresh["measured_at"].get<double>() - (profiler::kCalibrationMaxAgeDays - 1) * day));
  CHECK_FALSE(read_with("measured_at", "yesterday"));  // a field of the wrong type
  write_cache_file(path, {{"flops_per_second", 1.5e11}, {"bytes_per_second", 2.5e10}, {"threads", get_num_threads()}});
  CHECK_FALSE(profiler::read_machine_peaks(path).has_value());  // the old format: thread count alone
  std::filesystem::remove(path);
}

TEST_CASE("a calibration taken on a busy machine is not cached as the machine's peaks", "[profiler]") {
  const std::string path = temporary_path("busy_peaks.json");
  MachinePeaks busy = quiet_figures();
  busy.load = {.wall_seconds = 1, .cpu_seconds = 1, .waiting_seconds = 1, .counts_waiting = true};  // waited half
  REQUIRE(busy.measured_on_busy_machine());
  CHECK_FALSE(profiler::store_machine_peaks(path, busy));
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("without a usable cache the machine is calibrated, and cached when it was quiet", "[profiler]") {
  const std::string path = temporary_path("cache_dir") + "/peaks.json";
  const MachinePeaks measured = profiler::machine_peaks(path);
  CHECK(measured.flops_per_second > 1e8);  // any CPU that runs this suite does 0.1 GFLOP/s
  CHECK(measured.bytes_per_second > 1e7);
  CHECK(measured.bandwidth_by_size.size() == 6);
  INFO("calibrated while this process's threads " << measured.load.str());
  // Whether the machine was busy is for the scheduler to say: either answer has its outcome.
  CHECK(std::filesystem::exists(path) == !measured.measured_on_busy_machine());
  if (!measured.measured_on_busy_machine()) {
    const MachinePeaks cached = profiler::machine_peaks(path);
    CHECK(cached.flops_per_second == measured.flops_per_second);
    CHECK(cached.bytes_per_second == measured.bytes_per_second);
  }
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST_CASE("remeasuring drops the cached figures, which an op faster than them has proved wrong", "[profiler]") {
  const std::string path = temporary_path("wrong_peaks.json");
  MachinePeaks too_low = quiet_figures();
  too_low.flops_per_second = 1;  // one FLOP a second: every product beats it
  REQUIRE(profiler::store_machine_peaks(path, too_low));
  const MachinePeaks measured = profiler::machine_peaks(path, profiler::Calibration::Remeasure);
  CHECK(measured.flops_per_second > 1e8);
  const std::optional<MachinePeaks> cached = profiler::read_machine_peaks(path);
  CHECK(cached.has_value() == !measured.measured_on_busy_machine());
  if (cached) CHECK(cached->flops_per_second == measured.flops_per_second);
  std::filesystem::remove(path);
}

TEST_CASE("the machine figures print with their units", "[profiler]") {
  CHECK(profiler::to_string(MachinePeaks{9.84e10, 1.12e10}) == "98.4 GFLOP/s (float32 matmul), 11.2 GB/s (memory)");
  CHECK(profiler::to_string(MachinePeaks{9.84e10, 1.12e10, {{196608, 2.1e11}, {201326592, 1.12e10}}}) ==
        "98.4 GFLOP/s (float32 matmul), bytes at 210.0 GB/s (192 KiB) 11.2 GB/s (192 MiB)");
}
