// The roofline verdict and the machine figures it needs (see roofline.h for the reasoning).
#include "roofline.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/ops.h"

namespace ember::profiler {
namespace {

// What the cache's figures were measured with: a cache written by another method is measured anew.
constexpr const char* kMethod =
    "float32 matmul 512^3, 1024^3, 256x1024x1024, best; add_ and copy_ at 16Ki-16Mi floats, best batch";

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The fastest time per call of `work`: the machine's best, not its average under whatever else
// runs. It warms up for 10 ms (oneDNN builds its kernel, pages are touched, the clock speeds up),
// then times batches of calls, each at least 1 ms long so the clock's cost vanishes: at least
// `batches` of them and 20 ms.
template <typename Work>
double best_seconds_per_call(int batches, Work&& work) {
  auto start = std::chrono::steady_clock::now();
  int warm_up_calls = 0;
  while (warm_up_calls == 0 || seconds_since(start) < 0.01) {
    work();
    ++warm_up_calls;
  }
  const double one_call = seconds_since(start) / warm_up_calls;
  const int calls = std::max(1, static_cast<int>(1e-3 / one_call));
  double best = std::numeric_limits<double>::infinity();
  const auto measuring = std::chrono::steady_clock::now();
  for (int batch = 0; batch < batches || seconds_since(measuring) < 0.02; ++batch) {
    start = std::chrono::steady_clock::now();
    for (int call = 0; call < calls; ++call) work();
    best = std::min(best, seconds_since(start) / calls);
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

std::string binary_size(double bytes) {  // 192 KiB, 3 MiB
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int i = 0;
  while (bytes >= 1024 && i < 3) bytes /= 1024, ++i;
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %s", bytes, units[i]);
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

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

}  // namespace

MachinePeaks calibrate() {
  const SchedulerClock start = scheduler_clock();
  MachinePeaks peaks;
  // No one shape is the fastest everywhere (on a 2-core Sapphire Rapids 512³ runs at 340 GFLOP/s,
  // 1024³ at 255-315, a training step's 256x1024x1024 at 320): the peak is the best of three.
  using Shape = std::array<int64_t, 3>;  // m, k, n
  for (const auto& [m, k, n] : {Shape{512, 512, 512}, Shape{1024, 1024, 1024}, Shape{256, 1024, 1024}}) {
    const Tensor a = ones({m, k}), b = ones({k, n});
    const double flops = 2.0 * static_cast<double>(m * k * n);
    peaks.flops_per_second = std::max(peaks.flops_per_second, flops / best_seconds_per_call(5, [&] { mm(a, b); }));
  }
  // add_ reads two tensors and overwrites one, copy_ reads its source and (as the profiler counts
  // an in-place op) its target and writes the target: 12 bytes per float32 element, either way.
  for (int64_t elements = int64_t{16} << 10; elements <= int64_t{16} << 20; elements *= 4) {
    Tensor target = ones({elements});
    const Tensor source = ones({elements});
    const double traffic = 12.0 * static_cast<double>(elements);
    const double add_seconds = best_seconds_per_call(5, [&] { target.add_(source); });
    const double copy_seconds = best_seconds_per_call(5, [&] { target.copy_(source); });
    peaks.bandwidth_by_size.push_back({traffic, traffic / std::min(add_seconds, copy_seconds)});
  }
  peaks.bytes_per_second = peaks.bandwidth_by_size.back().bytes_per_second;
  peaks.load = machine_load_since(start);
  peaks.measured_on = today();
  return peaks;
}

double bandwidth_for(const MachinePeaks& peaks, double traffic_bytes) {
  const std::vector<BandwidthAtSize>& sizes = peaks.bandwidth_by_size;
  if (sizes.empty()) return peaks.bytes_per_second;
  // The largest measured size not above the op's traffic (the smallest, for smaller ops); a larger
  // size's rate counts too where noise made it faster, so the roof never drops as sizes shrink.
  size_t first = 0;
  while (first + 1 < sizes.size() && sizes[first + 1].traffic_bytes <= traffic_bytes) ++first;
  double rate = 0;
  for (size_t i = first; i < sizes.size(); ++i) rate = std::max(rate, sizes[i].bytes_per_second);
  return rate;
}

std::string default_machine_peaks_path() {
  namespace fs = std::filesystem;
  if (const char* dir = std::getenv("EMBER_CACHE_DIR")) return (fs::path(dir) / "machine_peaks.json").string();
  if (const char* dir = std::getenv("XDG_CACHE_HOME")) return (fs::path(dir) / "ember" / "machine_peaks.json").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : ".") / ".cache" / "ember" / "machine_peaks.json").string();
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      const size_t value = line.find_first_not_of(" \t", line.find(':') + 1);
      return value == std::string::npos ? "" : line.substr(value);
    }
  return "unknown CPU";
}

namespace {

// read_machine_peaks, which may throw where a field has the wrong type.
std::optional<MachinePeaks> parse_machine_peaks(std::ifstream& cached) {
  using nlohmann::json;
  const json figures = json::parse(cached, nullptr, /*allow_exceptions=*/false);
  if (!figures.is_object() || figures.value("cpu_model", "") != cpu_model() ||
      figures.value("threads", 0) != get_num_threads() || figures.value("method", "") != kMethod)
    return std::nullopt;
  const double age_days = (static_cast<double>(std::time(nullptr)) - figures.value("measured_at", 0.0)) / 86400;
  if (age_days < 0 || age_days > kCalibrationMaxAgeDays) return std::nullopt;
  MachinePeaks peaks;
  peaks.flops_per_second = figures.value("flops_per_second", 0.0);
  peaks.bytes_per_second = figures.value("bytes_per_second", 0.0);
  peaks.measured_on = figures.value("measured_on", "");
  if (!figures.contains("bandwidth_by_size") || !figures["bandwidth_by_size"].is_array()) return std::nullopt;
  for (const json& size : figures["bandwidth_by_size"]) {
    if (!size.is_array() || size.size() != 2 || !size[0].is_number() || !size[1].is_number()) return std::nullopt;
    peaks.bandwidth_by_size.push_back({size[0].get<double>(), size[1].get<double>()});
    if (peaks.bandwidth_by_size.back().bytes_per_second <= 0) return std::nullopt;
  }
  if (peaks.flops_per_second <= 0 || peaks.bytes_per_second <= 0 || peaks.bandwidth_by_size.empty())
    return std::nullopt;
  return peaks;
}

}  // namespace

std::optional<MachinePeaks> read_machine_peaks(const std::string& cache_path) {
  std::ifstream cached(cache_path);
  if (!cached) return std::nullopt;
  try {
    return parse_machine_peaks(cached);
  } catch (const nlohmann::json::exception&) {  // a field of the wrong type: not figures to trust
    return std::nullopt;
  }
}

bool store_machine_peaks(const std::string& cache_path, const MachinePeaks& peaks) {
  if (peaks.measured_on_busy_machine()) return false;
  using nlohmann::json;
  json sizes = json::array();
  for (const BandwidthAtSize& size : peaks.bandwidth_by_size)
    sizes.push_back({size.traffic_bytes, size.bytes_per_second});
  // A cache that cannot be written only means calibrating again next time.
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(cache_path).parent_path(), ignored);
  std::ofstream file(cache_path);
  file << json{{"cpu_model", cpu_model()},
               {"threads", get_num_threads()},
               {"method", kMethod},
               {"measured_at", static_cast<double>(std::time(nullptr))},
               {"measured_on", peaks.measured_on},
               {"waiting_fraction", peaks.load.waiting_fraction()},
               {"flops_per_second", peaks.flops_per_second},
               {"bytes_per_second", peaks.bytes_per_second},
               {"bandwidth_by_size", sizes}}
              .dump(2)
       << "\n";
  return static_cast<bool>(file);
}

MachinePeaks machine_peaks(const std::string& cache_path, Calibration calibration) {
  if (calibration == Calibration::UseCache)
    if (std::optional<MachinePeaks> cached = read_machine_peaks(cache_path)) return *cached;
  std::error_code ignored;
  std::filesystem::remove(cache_path, ignored);  // wrong, stale or another machine's: not kept either way
  MachinePeaks peaks = calibrate();
  // A busy moment (someone's compiler finishing) may pass: one more try before giving up on the cache.
  if (peaks.measured_on_busy_machine()) peaks = calibrate();
  store_machine_peaks(cache_path, peaks);
  return peaks;
}

std::string to_string(const MachinePeaks& peaks) {
  std::string text = figure(peaks.flops_per_second, "FLOP/s") + " (float32 matmul), ";
  if (peaks.bandwidth_by_size.empty()) return text + figure(peaks.bytes_per_second, "B/s") + " (memory)";
  text += "bytes at";
  for (const BandwidthAtSize& size : peaks.bandwidth_by_size) {
    text.append(" ").append(figure(size.bytes_per_second, "B/s"));
    text.append(" (").append(binary_size(size.traffic_bytes)).append(")");
  }
  return text;
}

const char* to_string(Bound bound) {
  switch (bound) {
    case Bound::Compute: return "compute-bound";
    case Bound::Memory: return "memory-bound";
    case Bound::Overhead: return "overhead-bound";
  }
  return "";
}

Verdict roofline_verdict_from_bounds(double compute_seconds, double memory_seconds, double seconds) {
  Verdict verdict;
  verdict.compute_seconds = compute_seconds;
  verdict.memory_seconds = memory_seconds;
  verdict.seconds = seconds;
  if (seconds > kOverheadFactor * std::max(compute_seconds, memory_seconds)) verdict.bound = Bound::Overhead;
  else verdict.bound = compute_seconds >= memory_seconds ? Bound::Compute : Bound::Memory;
  return verdict;
}

Verdict roofline_verdict(double flops, double bytes, double seconds, const MachinePeaks& peaks) {
  return roofline_verdict_from_bounds(flops / peaks.flops_per_second, bytes / bandwidth_for(peaks, bytes), seconds);
}

Verdict roofline_verdict(const EventAverage& row, const MachinePeaks& peaks) {
  const double calls = static_cast<double>(std::max<int64_t>(row.count, 1));
  return roofline_verdict(static_cast<double>(row.flops) / calls,
                          static_cast<double>(row.bytes_read + row.bytes_written) / calls,
                          row.self_cpu_time_total / 1e6 / calls, peaks);
}

bool has_roofline(const EventAverage& row) { return row.flops > 0 || row.bytes_read + row.bytes_written > 0; }

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
  if (peaks.measured_on_busy_machine())
    out += "(calibrated on a busy machine: its threads " + peaks.load.str() +
           "; the verdicts lean away from "
           "overhead-bound)\n";
  out += format_row("Name", "Self CPU avg", "FLOPs/call", "Bytes/call", "At peak FLOP", "At peak B/s", "Verdict");
  for (const EventAverage& row : rows) {
    const Verdict verdict = roofline_verdict(row, peaks);
    const double calls = static_cast<double>(std::max<int64_t>(row.count, 1));
    const double bytes = static_cast<double>(row.bytes_read + row.bytes_written) / calls;
    out += format_row(shown_name(row.key), seconds_text(verdict.seconds),
                      row.flops == 0 ? "--" : figure(row.flops / calls, ""), bytes == 0 ? "--" : figure(bytes, "B"),
                      row.flops == 0 ? "--" : seconds_text(verdict.compute_seconds),
                      bytes == 0 ? "--" : seconds_text(verdict.memory_seconds),
                      !has_roofline(row)            ? "--"
                      : verdict.faster_than_peaks() ? "faster than the peaks: recalibrate"
                                                    : to_string(verdict.bound));
  }
  return out;
}

}  // namespace ember::profiler
