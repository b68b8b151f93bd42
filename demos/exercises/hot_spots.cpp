// The profiled training step of the hot-spot exercise and the chapter's advice (hot_spots.h).
#include "hot_spots.h"

#include <algorithm>

using namespace ember;

namespace exercises::hot_spots {

std::string advice(const profiler::Verdict& verdict, double fraction_of_peak) {
  switch (verdict.bound) {
    case profiler::Bound::Compute:
      if (fraction_of_peak >= kAtPeak)
        return "already at the hardware limit: only less arithmetic, or cheaper arithmetic (lower precision "
               "where the hardware multiplies it faster), makes it faster";
      return "compute-bound below the peak: a bigger batch uses the hardware better; lower precision "
             "(autocast) where the hardware has it";
    case profiler::Bound::Memory:
      return "memory-bound: fuse it with its neighbours so the data is read once, and drop needless copies "
             "(contiguous, permute)";
    case profiler::Bound::Overhead:
      return "overhead-bound: batch more; fewer, larger ops pay the fixed cost of each call less often";
  }
  return "";
}

Result run(int steps, int top_count, const profiler::MachinePeaks& peaks, const std::string& trace_path) {
  manual_seed(0);
  nn::Sequential model{nn::Linear(512, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 10)};
  optim::SGD optimizer(model.parameters(), {.lr = 0.01});
  const Tensor inputs = randn({256, 512});
  const Tensor targets = randint(0, 10, {256});
  auto train_step = [&] {
    optimizer.zero_grad();
    cross_entropy(model(inputs), targets).backward();
    optimizer.step();
  };
  for (int warm_up = 0; warm_up < 3; ++warm_up) train_step();

  profiler::Profiler prof({.with_flops = true});
  for (int step = 0; step < steps; ++step) {
    auto range = profiler::record_function("training step");
    train_step();
  }
  prof.stop();
  if (!trace_path.empty()) prof.export_chrome_trace(trace_path);

  Result result;
  result.steps = steps;
  const profiler::KeyAverages averages = prof.key_averages();
  result.table = averages.table("self_cpu_time_total", 12);
  std::vector<profiler::EventAverage> ops;
  for (const profiler::EventAverage& row : averages)
    if (row.key.rfind("aten::", 0) == 0) ops.push_back(row);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.self_cpu_time_total > b.self_cpu_time_total; });
  if (static_cast<int>(ops.size()) > top_count) ops.resize(top_count);
  for (const profiler::EventAverage& row : ops) {
    HotSpot spot{row, profiler::roofline_verdict(row, peaks), 0, ""};
    if (spot.verdict.seconds > 0) spot.fraction_of_peak = spot.verdict.compute_seconds / spot.verdict.seconds;
    spot.advice = advice(spot.verdict, spot.fraction_of_peak);
    result.top.push_back(spot);
  }
  return result;
}

}  // namespace exercises::hot_spots
