// The chapter's exercise 3: find the hot spots with the profiler. Profiles five training steps of
// an MLP, prints PyTorch's table sorted by self time, then the top five ops with the roofline
// verdict (compute-, memory- or overhead-bound on this machine) and the chapter's advice for each,
// and writes the steps as a chrome trace.
//   build/demos/exercise3_hot_spots [output folder]   (default ./exercise-output)
#include <cstdio>
#include <iostream>

#include "exercises/chart.h"
#include "exercises/hot_spots.h"

using namespace ember;
using namespace exercises;

int main(int argc, char** argv) {
  const std::string folder = output_folder(argc, argv);
  const profiler::MachinePeaks peaks = profiler::machine_peaks();
  const std::string trace = folder + "/exercise3_trace.json";
  const hot_spots::Result result = hot_spots::run(5, 5, peaks, trace);

  std::printf("Five training steps of an MLP 512-1024-1024-10 (batch 256, cross_entropy, SGD), profiled:\n\n%s\n",
              result.table.c_str());
  std::printf("This machine: %s\n\n", profiler::to_string(peaks).c_str());
  std::printf("The top five ops by self time, per call:\n");
  for (const hot_spots::HotSpot& spot : result.top) {
    const double per_call_ms = spot.verdict.seconds * 1e3;
    std::printf("  %-22s %5lld calls  %8.3f ms  %-14s (%.0f%% of peak FLOP/s; at peak: compute %.3f ms, memory "
                "%.3f ms)\n      -> %s\n",
                spot.row.key.c_str(), static_cast<long long>(spot.row.count), per_call_ms,
                profiler::to_string(spot.verdict.bound), 100 * spot.fraction_of_peak,
                spot.verdict.compute_seconds * 1e3, spot.verdict.memory_seconds * 1e3, spot.advice.c_str());
  }
  const hot_spots::HotSpot& first = result.top.front();
  const bool product_first = first.row.key == "aten::mm" || first.row.key == "aten::addmm";
  if (product_first && first.verdict.bound == profiler::Bound::Compute)
    std::printf("\nA matrix product leads and it is compute-bound: the levers are the batch size and lower precision.\n"
                "Were copy_, contiguous or element-wise ops on top, the fix would be layout and fusion.\n");
  else
    std::printf("\n%s leads (%s): see its advice above before touching the matrix products.\n", first.row.key.c_str(),
                profiler::to_string(first.verdict.bound));
  std::printf("\n  wrote %s: open it at ui.perfetto.dev (Open trace file) or chrome://tracing (Load)\n", trace.c_str());
}
