// The chapter's third exercise: find the hot spots. One training step of a small model is profiled
// (after warm-up); the ops are ranked by self time, the top five get the roofline verdict
// (roofline.h: compute-, memory- or overhead-bound on this machine) and the chapter's advice for
// that case: lower precision or a bigger batch when compute-bound, fusing when memory-bound,
// batching more when overhead-bound, and nothing to gain when an op already runs at the hardware's
// peak. The step is also written as a chrome trace to open in Perfetto.
#pragma once
#include <string>
#include <vector>

#include "ember.h"

namespace exercises::hot_spots {

struct HotSpot {
  ember::profiler::EventAverage row;  // the op's key_averages() row (times in microseconds)
  ember::profiler::Verdict verdict;
  double fraction_of_peak = 0;  // its FLOP/s over the machine's peak FLOP/s
  std::string advice;
};

struct Result {
  std::vector<HotSpot> top;  // by self CPU time, largest first
  std::string table;         // PyTorch's table, sorted by self_cpu_time_total
  int steps = 0;             // training steps profiled
};

// A compute-bound op at or above this fraction of the peak is at the hardware's limit.
constexpr double kAtPeak = 0.7;
std::string advice(const ember::profiler::Verdict& verdict, double fraction_of_peak);

// Profiles `steps` training steps (an MLP 512-1024-1024-10, batch 256, cross_entropy, SGD) and
// writes their chrome trace to `trace_path` (no trace when it is empty).
Result run(int steps, int top_count, const ember::profiler::MachinePeaks& peaks, const std::string& trace_path);

}  // namespace exercises::hot_spots
