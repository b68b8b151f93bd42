// The roofline verdict and the machine figures it needs (see roofline.h for the reasoning).
#include "roofline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "ops/ops.h"

namespace ember::profiler {
namespace {

// The fastest of a few runs: the machine's best, not its average under whatever else runs.
template <typename Work>
double best_seconds(int runs, Work&& work) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

std::string figure(double value, const char* unit) {  // 98.4 GFLOP/s, 11.2 GB/s, 3.1 ms
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (value >= 1000 && i < 5) value /= 1000, ++i;
  char text[48];
  std::snprintf(text, sizeof text, "%.1f %s%s", value, prefixes[i], unit);
  return text;
}

std::string seconds_text(double seconds) {
  char text[32];
  if (seconds >= 1) std::snprintf(text, sizeof text, "%.3fs", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3fms", seconds * 1e3);
  else if (seconds >= 1e-6) std::snprintf(text, sizeof text, "%.3fus", seconds * 1e6);
  else std::snprintf(text, sizeof text, "%.3fns", seconds * 1e9);
  return text;
}

}  // namespace

MachinePeaks calibrate() {
  MachinePeaks peaks;
  const int64_t n = 1024;  // 2.1 GFLOP per product: tens of milliseconds
  const Tensor a = ones({n, n}), b = ones({n, n});
  mm(a, b);  // oneDNN builds its kernel on the first call
  peaks.flops_per_second = 2.0 * n * n * n / best_seconds(3, [&] { mm(a, b); });
  const int64_t count = int64_t{16} << 20;  // 64 MiB of float32 each way: far beyond the caches
  const Tensor source = ones({count});
  Tensor target = empty({count});
  target.copy_(source);  // touch every page once
  peaks.bytes_per_second = 2.0 * 4 * count / best_seconds(3, [&] { target.copy_(source); });
  return peaks;
}

std::string default_machine_peaks_path() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("EMBER_CACHE_DIR")) return (fs::path(dir) / "machine_peaks.json").string();
  if (const char* dir = std::getenv("XDG_CACHE_HOME")) return (fs::path(dir) / "ember" / "machine_peaks.json").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".cache" / "ember" / "machine_peaks.json").string();
}

MachinePeaks machine_peaks(const std::string& cache_path) {
  using nlohmann::json;
  const int threads = get_num_threads();
  std::ifstream cached(cache_path);
  if (cached) {
    const json figures = json::parse(cached, nullptr, /*allow_exceptions=*/false);
    if (figures.is_object() && figures.value("threads", 0) == threads && figures.value("flops_per_second", 0.0) > 0 &&
        figures.value("bytes_per_second", 0.0) > 0)
      return {figures["flops_per_second"].get<double>(), figures["bytes_per_second"].get<double>()};
  }
  const MachinePeaks peaks = calibrate();
  // A cache that cannot be written only means calibrating again next time.
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(cache_path).parent_path(), ignored);
  std::ofstream(cache_path) << json{{"flops_per_second", peaks.flops_per_second},
                                    {"bytes_per_second", peaks.bytes_per_second},
                                    {"threads", threads},
                                    {"measured_with", "float32 1024x1024 matmul; 64 MiB copy"}}
                                   .dump(2)
                            << "\n";
  return peaks;
}

std::string to_string(const MachinePeaks& peaks) {
  return figure(peaks.flops_per_second, "FLOP/s") + " (float32 matmul), " + figure(peaks.bytes_per_second, "B/s") +
         " (copy)";
}

const char* to_string(Bound bound) {
  switch (bound) {
    case Bound::Compute: return "compute-bound";
    case Bound::Memory: return "memory-bound";
    case Bound::Overhead: return "overhead-bound";
  }
  return "";
}

Verdict roofline_verdict(double flops, double bytes, double seconds, const MachinePeaks& peaks) {
  Verdict verdict;
  verdict.compute_seconds = flops / peaks.flops_per_second;
  verdict.memory_seconds = bytes / peaks.bytes_per_second;
  verdict.seconds = seconds;
  const double bound_seconds = std::max(verdict.compute_seconds, verdict.memory_seconds);
  if (seconds > kOverheadFactor * bound_seconds) verdict.bound = Bound::Overhead;
  else verdict.bound = verdict.compute_seconds >= verdict.memory_seconds ? Bound::Compute : Bound::Memory;
  return verdict;
}

Verdict roofline_verdict(const EventAverage& row, const MachinePeaks& peaks) {
  const double calls = static_cast<double>(std::max<int64_t>(row.count, 1));
  return roofline_verdict(static_cast<double>(row.flops) / calls,
                          static_cast<double>(row.bytes_read + row.bytes_written) / calls,
                          row.self_cpu_time_total / 1e6 / calls, peaks);
}

std::string roofline_table(const KeyAverages& averages, const MachinePeaks& peaks, int64_t row_limit) {
  std::vector<EventAverage> rows = averages.rows();
  std::stable_sort(rows.begin(), rows.end(), [](const EventAverage& a, const EventAverage& b) {
    return a.self_cpu_time_total > b.self_cpu_time_total;
  });
  if (static_cast<int64_t>(rows.size()) > row_limit) rows.resize(std::max<int64_t>(row_limit, 0));
  auto shown_name = [](const std::string& key) { return key.size() >= 52 ? key.substr(0, 52) + "..." : key; };
  size_t name_width = 4;
  for (const EventAverage& row : rows) name_width = std::max(name_width, shown_name(row.key).size());
  char line[256];
  auto format_row = [&](const std::string& name, const std::string& a, const std::string& b, const std::string& c,
                        const std::string& d, const std::string& e, const std::string& verdict) {
    std::snprintf(line, sizeof line, "%*s  %12s  %12s  %12s  %12s  %12s  %s\n", static_cast<int>(name_width),
                  name.c_str(), a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str(), verdict.c_str());
    return std::string(line);
  };
  std::string out = "Roofline on this machine: " + to_string(peaks) + "\n";
  out += format_row("Name", "Self CPU avg", "FLOPs/call", "Bytes/call", "At peak FLOP", "At peak B/s", "Verdict");
  for (const EventAverage& row : rows) {
    const Verdict verdict = roofline_verdict(row, peaks);
    const double calls = static_cast<double>(std::max<int64_t>(row.count, 1));
    const double bytes = static_cast<double>(row.bytes_read + row.bytes_written) / calls;
    out += format_row(shown_name(row.key), seconds_text(verdict.seconds),
                      row.flops == 0 ? "--" : figure(row.flops / calls, ""), bytes == 0 ? "--" : figure(bytes, "B"),
                      row.flops == 0 ? "--" : seconds_text(verdict.compute_seconds),
                      bytes == 0 ? "--" : seconds_text(verdict.memory_seconds), to_string(verdict.bound));
  }
  return out;
}

}  // namespace ember::profiler
