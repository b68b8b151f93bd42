// The chapter's third exercise: find the hot spots. A few training steps of a small model are
// profiled (after warm-up); the ops are ranked by self time, the top five get the roofline verdict
// (roofline.h: compute-, memory- or overhead-bound on this machine) and the chapter's advice for
// that case: lower precision or a bigger batch when compute-bound, fusing when memory-bound,
// batching more when overhead-bound, and nothing to gain when an op already runs at the hardware's
// peak. The steps are also written as a chrome trace to open in Perfetto.
//
// Each step is one repeat: an op's time is the median over the steps of its self time in each,
// so a step in which the OS took the CPU away (a preemption adds milliseconds to whichever op was
// running) does not move it, and the 10%-90% spread over the steps shows how steady it was. A
// verdict is withheld, with the reason, when the measurement cannot support it (judge()): while
// other processes held the CPUs, an op is slowed by waiting for one, so a slow time no longer
// means overhead, nor a low share of the peak FLOP/s a small batch. Compute- and memory-bound
// verdicts stand even then: waiting only lengthens a time, and a lengthened time that is still
// within kOverheadFactor of its bound was within it before.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ember.h"

namespace exercises::hot_spots {

struct HotSpot {
  std::string key;  // "aten::mm"
  // key_averages(group_by_input_shape=true) rows of this op: each shape meets its own roofline.
  std::vector<ember::profiler::EventAverage> shapes;
  int64_t calls = 0;                 // over all the profiled steps
  double step_seconds = 0;           // its self time in one step: the median over the steps
  double step_seconds_low = 0;       // 10th percentile over the steps
  double step_seconds_high = 0;      // 90th percentile
  ember::profiler::Verdict verdict;  // per call, on the median step (judge())
  double fraction_of_peak = 0;       // its FLOP/s over the machine's peak FLOP/s
  std::string withheld;              // why there is no verdict; empty when there is one
  std::string advice;

  double spread() const { return step_seconds > 0 ? (step_seconds_high - step_seconds_low) / step_seconds : 0; }
  double seconds_per_call() const { return verdict.seconds; }
};

struct Result {
  std::vector<HotSpot> ops;  // every aten:: op, by median self time per step, largest first
  std::string table;         // PyTorch's table over all steps, sorted by self_cpu_time_total
  int steps = 0;             // training steps profiled
  ember::MachineLoad load;   // how busy the machine was while they ran
};

// A compute-bound op at or above this fraction of the peak is at the hardware's limit.
constexpr double kAtPeak = 0.7;
// An op whose time varies more than this over the steps (10%-90% spread over the median) has no
// reliable time where its faster steps would get another verdict: on a quiet machine the top five
// ops vary by under 0.3, on a busy one by up to several times their median.
constexpr double kUnsteadySpread = 0.5;

std::string advice(const ember::profiler::Verdict& verdict, double fraction_of_peak);

// Profiles `steps` training steps (an MLP 512-1024-1024-10, batch 256, cross_entropy, SGD) and
// writes their chrome trace to `trace_path` (no trace when it is empty); the verdicts are judged
// with `peaks`.
Result run(int steps, const ember::profiler::MachinePeaks& peaks, const std::string& trace_path);
// The same for any step: three warm-up calls of `train_step`, then `steps` profiled ones.
Result profile_steps(int steps, const std::function<void()>& train_step, const ember::profiler::MachinePeaks& peaks,
                     const std::string& trace_path);

// Whether the op has a roofline: FLOPs or bytes of its own (profiler::has_roofline). A view or a
// composite (aten::linear, aten::contiguous, aten::clone, whose copy_ does the work) has none, and
// judge() withholds its verdict.
bool has_work(const HotSpot& spot);

// (Re)computes each op's verdict, what is withheld and why, and the advice, from `peaks`.
void judge(Result& result, const ember::profiler::MachinePeaks& peaks);

// The ops that copy a tensor into another layout: aten::copy_, and aten::contiguous and aten::clone
// around it.
bool is_layout_op(const std::string& key);
// The exercise's last word on what limits the step, from the op that leads: when a copy leads
// (is_layout_op), memory and layout, whatever the verdicts; a compute-bound matrix product, the
// batch size and lower precision; otherwise the leader's verdict, or why there is none.
std::string conclusion(const Result& result, const ember::profiler::MachinePeaks& peaks);

// Whether some op ran faster than `peaks` allow (the peaks are then wrong: measure them again).
bool faster_than_peaks(const Result& result);

}  // namespace exercises::hot_spots
