// The roofline verdict: for each op in a profile, is it compute-bound, memory-bound, or
// overhead-bound? (The chapter's third exercise, answered by the tool itself.)
//
// An op cannot finish faster than its arithmetic at the machine's peak FLOP/s, nor faster than
// its bytes at the fastest rate the machine moves that many bytes; the larger of the two is the
// time it "should" take. If it took about that long, the larger bound names what limits it. If it
// took far longer (kOverheadFactor times) than both, neither arithmetic nor memory is the problem:
// the time goes to per-op overhead (dispatch, checks, allocation), which only fewer or bigger ops
// remove.
//
// An op's FLOPs are PyTorch's count (profiler.h, flops_of); its bytes are what it reads (the
// distinct elements of its tensor arguments: a broadcast one counts once) plus what it writes (the
// tensors it allocates, or the tensor an in-place op overwrites), each byte once: the least
// traffic the op can get away with. Views and composite ops move no bytes of their own. The time
// is the op's self time, so aten::linear is judged on its own overhead and its aten::addmm on the
// matrix product.
//
// What "peak bandwidth" means. A roof is only a roof if no op beats it. A copy far beyond the
// caches (64 MiB) measures the DRAM's rate, but a training step's tensors of a few MiB live in
// the caches, which move bytes several times faster: against the DRAM figure an aten::add_ of
// gradients ran in 0.037 ms where "peak" said 0.241 ms, and was called memory-bound for it. So
// the calibration times ember's own element-wise traffic (aten::add_ and aten::copy_, the faster
// of the two, in the profiler's byte count) at six sizes from 192 KiB (in the core's cache) to
// 192 MiB (DRAM), and an op's bytes meet the rate measured at the largest size not above its own:
// the fastest its bytes could have moved. The FLOP/s peak is the best float32 matrix product on
// all threads of three shapes (512³, 1024³, and a training step's 256x1024x1024): with 1024³
// alone, the exercise's products ran faster than "peak".
//
// The figures are cached (machine_peaks.json) under the CPU's model name, the thread count and
// the calibration's method, and measured anew after kCalibrationMaxAgeDays. A calibration taken
// while other processes held the CPUs (machine_load.h) is used for that run but never cached: its
// peaks are too low, and every op would look closer to its roof than it is. An op measured faster
// than the peaks (Verdict::faster_than_peaks) proves them wrong: the caller measures them again
// (Calibration::Remeasure), which also drops the cached file.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "machine_load.h"
#include "profiler.h"

namespace ember::profiler {

struct BandwidthAtSize {
  double traffic_bytes = 0;     // bytes read + written per call, as the profiler counts them
  double bytes_per_second = 0;  // the faster of add_ and copy_ at that traffic
};

struct MachinePeaks {
  double flops_per_second = 0;  // float32 matrix product, all threads
  double bytes_per_second = 0;  // traffic far beyond the caches (the DRAM's rate)
  // Smallest traffic first; empty: bytes_per_second at every size.
  std::vector<BandwidthAtSize> bandwidth_by_size = {};
  MachineLoad load = {};         // while the calibration ran; zero for figures read from the cache
  std::string measured_on = {};  // the calibration's date, "2025-01-31"

  bool measured_on_busy_machine() const { return load.busy(); }
};

// The rate an op that moves `traffic_bytes` per call can reach at best (see above).
double bandwidth_for(const MachinePeaks& peaks, double traffic_bytes);

// Measures the peaks now (run it with no profiler running, or its ops are in the profile).
MachinePeaks calibrate();
// $EMBER_CACHE_DIR/machine_peaks.json, else $XDG_CACHE_HOME/ember/..., else $HOME/.cache/ember/...
std::string default_machine_peaks_path();
// /proc/cpuinfo's model name ("AMD Ryzen 9 9950X 16-Core Processor"), the cache's first key.
std::string cpu_model();
constexpr int kCalibrationMaxAgeDays = 30;

enum class Calibration { UseCache, Remeasure };
// The cached figures from `cache_path` when they were measured on this CPU model, with this
// thread count and method, less than kCalibrationMaxAgeDays ago; otherwise calibrates (twice when
// the first try was busy) and caches what a quiet machine measured. Remeasure drops the cache.
MachinePeaks machine_peaks(const std::string& cache_path = default_machine_peaks_path(),
                           Calibration calibration = Calibration::UseCache);
// The figures cached in `cache_path` when they apply here: this CPU model, thread count and
// method, measured less than kCalibrationMaxAgeDays ago.
std::optional<MachinePeaks> read_machine_peaks(const std::string& cache_path);
// Writes `peaks` to `cache_path` as this machine's, unless they were measured on a busy machine.
// Returns whether it wrote them.
bool store_machine_peaks(const std::string& cache_path, const MachinePeaks& peaks);

// "98.4 GFLOP/s (float32 matmul), 11.2 GB/s (memory)"; with the sizes: "..., bytes at
// 210.4 GB/s (192 KiB) ... 9.8 GB/s (192 MiB)"
std::string to_string(const MachinePeaks& peaks);

enum class Bound { Compute, Memory, Overhead };
const char* to_string(Bound bound);  // "compute-bound", "memory-bound", "overhead-bound"

constexpr double kOverheadFactor = 10;

struct Verdict {
  Bound bound = Bound::Overhead;
  double compute_seconds = 0;  // flops at peak FLOP/s
  double memory_seconds = 0;   // bytes at peak bandwidth for their size
  double seconds = 0;          // what it took

  // Faster than the roof allows: the peaks are wrong, not the op.
  bool faster_than_peaks() const { return seconds < std::max(compute_seconds, memory_seconds); }
};
// The verdict from the two bounds and the time taken.
Verdict roofline_verdict_from_bounds(double compute_seconds, double memory_seconds, double seconds);
Verdict roofline_verdict(double flops, double bytes, double seconds, const MachinePeaks& peaks);
// The verdict on one row of key_averages(): per call, on its self time.
Verdict roofline_verdict(const EventAverage& row, const MachinePeaks& peaks);
// Whether a row can have a verdict: an op that counts FLOPs or moves bytes of its own. A user's
// range, an autograd wrapper row, a view and a composite op (whose work is in the ops inside it)
// have neither, so a roofline says nothing about them: their tables show "--".
bool has_roofline(const EventAverage& row);

// The top rows by self CPU time with their verdicts, the machine's figures on top.
std::string roofline_table(const KeyAverages& averages, const MachinePeaks& peaks, int64_t row_limit = 10);

}  // namespace ember::profiler
