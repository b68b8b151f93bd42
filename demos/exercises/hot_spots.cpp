// The profiled training steps of the hot-spot exercise, the verdicts and the chapter's advice
// (hot_spots.h).
#include "hot_spots.h"

#include <algorithm>
#include <cstdio>
#include <map>

using namespace ember;

namespace exercises::hot_spots {
namespace {

double percentile(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5)];
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  return text;
}

}  // namespace

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

Result run(int steps, const profiler::MachinePeaks& peaks, const std::string& trace_path) {
  manual_seed(0);
  nn::Sequential model{nn::Linear(512, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 10)};
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.01));
  const Tensor inputs = randn({256, 512});
  const Tensor targets = randint(0, 10, {256});
  return profile_steps(
      steps,
      [&] {
        optimizer.zero_grad();
        cross_entropy(model(inputs), targets).backward();
        optimizer.step();
      },
      peaks, trace_path);
}

Result profile_steps(int steps, const std::function<void()>& train_step, const profiler::MachinePeaks& peaks,
                     const std::string& trace_path) {
  for (int warm_up = 0; warm_up < 3; ++warm_up) train_step();

  Result result;
  result.steps = steps;
  const SchedulerClock start = scheduler_clock();
  profiler::Profiler prof({.with_flops = true});
  for (int step = 0; step < steps; ++step) {
    auto range = profiler::record_function("training step");
    train_step();
  }
  prof.stop();
  result.load = machine_load_since(start);
  if (!trace_path.empty()) prof.export_chrome_trace(trace_path);
  result.table = prof.key_averages().table("self_cpu_time_total", 12);

  // Each op's self time in each step: an op belongs to the step whose range holds its start.
  const profiler::EventList& events = prof.events();
  std::vector<const profiler::Event*> step_ranges;
  for (const profiler::Event& event : events.events())
    if (event.is_user_annotation && event.name == "training step") step_ranges.push_back(&event);
  std::map<std::string, std::vector<double>> step_seconds;
  for (const profiler::Event& event : events.events()) {
    if (event.name.rfind("aten::", 0) != 0) continue;
    for (size_t step = 0; step < step_ranges.size(); ++step)
      if (step_ranges[step]->start_ns <= event.start_ns && event.start_ns < step_ranges[step]->end_ns) {
        std::vector<double>& seconds = step_seconds[event.name];
        seconds.resize(step_ranges.size());
        seconds[step] += static_cast<double>(events.self_cpu_time_ns(event)) * 1e-9;
        break;
      }
  }
  for (const auto& [key, seconds] : step_seconds) {
    HotSpot spot;
    spot.key = key;
    spot.step_seconds = percentile(seconds, 0.5);
    spot.step_seconds_low = percentile(seconds, 0.1);
    spot.step_seconds_high = percentile(seconds, 0.9);
    result.ops.push_back(spot);
  }
  for (const profiler::EventAverage& row : prof.key_averages(/*group_by_input_shape=*/true))
    for (HotSpot& spot : result.ops)
      if (spot.key == row.key) spot.shapes.push_back(row), spot.calls += row.count;
  std::stable_sort(result.ops.begin(), result.ops.end(),
                   [](const HotSpot& a, const HotSpot& b) { return a.step_seconds > b.step_seconds; });
  judge(result, peaks);
  return result;
}

bool has_work(const HotSpot& spot) {
  return std::any_of(spot.shapes.begin(), spot.shapes.end(),
                     [](const profiler::EventAverage& shape) { return profiler::has_roofline(shape); });
}

void judge(Result& result, const profiler::MachinePeaks& peaks) {
  for (HotSpot& spot : result.ops) {
    double compute_seconds = 0, memory_seconds = 0;  // over all calls, each shape at its own roof
    for (const profiler::EventAverage& shape : spot.shapes) {
      const double bytes = static_cast<double>(shape.bytes_read + shape.bytes_written);
      compute_seconds += static_cast<double>(shape.flops) / peaks.flops_per_second;
      if (bytes > 0) memory_seconds += bytes / profiler::bandwidth_for(peaks, bytes / static_cast<double>(shape.count));
    }
    const double calls = static_cast<double>(std::max<int64_t>(spot.calls, 1));
    spot.verdict = profiler::roofline_verdict_from_bounds(compute_seconds / calls, memory_seconds / calls,
                                                          spot.step_seconds * result.steps / calls);
    const profiler::Verdict& verdict = spot.verdict;
    spot.fraction_of_peak = verdict.seconds > 0 ? verdict.compute_seconds / verdict.seconds : 0;
    const bool busy = result.load.busy();
    // Unsteady matters only where the op's faster steps would be judged otherwise.
    const double low_seconds = spot.step_seconds_low * result.steps / calls;
    const bool unsteady =
        spot.spread() > kUnsteadySpread &&
        profiler::roofline_verdict_from_bounds(verdict.compute_seconds, verdict.memory_seconds, low_seconds).bound !=
            verdict.bound;
    spot.withheld.clear();
    if (!has_work(spot))
      spot.withheld = "it counts no FLOPs and moves no bytes of its own (a view, or an op whose work is in the ops "
                      "it calls)";
    else if (peaks.measured_on_busy_machine()) spot.withheld = "the machine was too busy to measure its peaks";
    else if (verdict.faster_than_peaks())
      spot.withheld = "it ran faster than the measured peaks allow (" + milliseconds(verdict.seconds) +
                      " per call; at peak " + milliseconds(std::max(verdict.compute_seconds, verdict.memory_seconds)) +
                      "): the peaks are wrong";
    else if (verdict.bound == profiler::Bound::Overhead && busy)
      spot.withheld = "the machine was too busy to judge: on a busy machine an op also waits for a CPU, which "
                      "looks like overhead";
    else if (verdict.bound == profiler::Bound::Overhead && unsteady)
      spot.withheld = "its time varied too much from step to step to judge";
    if (!spot.withheld.empty()) spot.advice = "no verdict: " + spot.withheld;
    else if (verdict.bound == profiler::Bound::Compute && spot.fraction_of_peak < kAtPeak &&
             (busy || (spot.spread() > kUnsteadySpread && verdict.compute_seconds >= kAtPeak * low_seconds)))
      spot.advice = std::string("compute-bound; how near the peak it runs cannot be told: ") +
                    (busy ? "the machine was too busy" : "its time varied too much from step to step");
    else spot.advice = advice(verdict, spot.fraction_of_peak);
  }
}

bool is_layout_op(const std::string& key) {
  return key == "aten::copy_" || key == "aten::contiguous" || key == "aten::clone";
}

std::string conclusion(const Result& result, const profiler::MachinePeaks& peaks) {
  if (result.ops.empty()) return "No op ran in the profiled steps.";
  const HotSpot& first = result.ops.front();
  const bool product = first.key == "aten::mm" || first.key == "aten::addmm";
  if (product && first.withheld.empty() && first.verdict.bound == profiler::Bound::Compute)
    return "A matrix product leads and it is compute-bound: the levers are the batch size and lower precision.\n"
           "Were copy_, contiguous or element-wise ops on top, the fix would be layout and fusion.";
  if (is_layout_op(first.key))
    return first.key +
           " leads: the step spends its time copying tensors into another layout, so the problem is memory and\n"
           "layout, not arithmetic: keep tensors in the layout the next op reads (drop permute + contiguous pairs),\n"
           "and fuse the element-wise ops around the copies.";
  if (result.load.busy() || peaks.measured_on_busy_machine())
    return "The machine was too busy to judge what limits this training step (" + first.key +
           " leads here): run the\nexercise again on a quiet machine.";
  if (!first.withheld.empty())
    return "No verdict on what limits this training step: " + first.key + " leads, and " + first.withheld + ".";
  return first.key + " leads (" + profiler::to_string(first.verdict.bound) +
         "): see its advice above before touching the matrix products.";
}

bool faster_than_peaks(const Result& result) {
  return std::any_of(result.ops.begin(), result.ops.end(),
                     [](const HotSpot& spot) { return spot.verdict.faster_than_peaks(); });
}

}  // namespace exercises::hot_spots
