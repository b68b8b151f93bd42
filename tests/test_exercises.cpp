// The chapter's three exercises (demos/exercises/): the figures the programs print are consistent
// with what the engine says. A kept loss grows memory by exactly the tensors its graph saved,
// loss.item() grows nothing, bf16 autocast errs at bf16's level, and a training step's hot spots
// are its matrix products. No timing decides a test: the verdicts are fed chosen times, and the
// one ranking measured rests on medians a busy machine cannot move (see that test).
#include <catch2/catch.hpp>

#include <map>

#include "exercises/autocast_speed.h"
#include "exercises/hot_spots.h"
#include "exercises/memory_leak.h"
#include "skip.h"

using namespace ember;
using namespace exercises;

TEST_CASE("exercise 1: each kept loss grows memory by exactly the tensors its graph saved, plus itself",
          "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& kept_loss = result.curves[0];
  REQUIRE(kept_loss.keep == memory_leak::Keep::Loss);
  CHECK(kept_loss.grows_linearly());
  CHECK(kept_loss.bytes.size() == 6);
  CHECK(kept_loss.bytes_per_step() == result.held_bytes);
  CHECK(kept_loss.bytes.back() == 6 * result.held_bytes);
  // Two hidden activations [32, 256] (each saved by ReLU and the next Linear), log_softmax's output
  // [32, 10], nll_loss's 0-d total weight (which PyTorch's node keeps too) and the 0-d loss:
  // 2 * 32768 + 1280 + 4 + 4 bytes.
  CHECK(result.held_bytes == 66824);
  REQUIRE(result.held.size() == 5);
  CHECK(result.held[0].held_by == "NllLossBackward0");
  CHECK(result.held[1].held_by == "LogSoftmaxBackward0");
  CHECK(result.held[2].held_by == "AddmmBackward0, ReluBackward0");
  CHECK(result.held[2].sizes == Dims{32, 256});
  CHECK(result.held[4].held_by == "the loss itself");
}

TEST_CASE("exercise 1: profile_memory names the ops that allocated what a kept loss holds, to the byte",
          "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 2);
  CHECK(result.profiled_bytes == result.held_bytes);
  CHECK(result.profiled_bytes == result.curves[0].bytes_per_step());
  // The two kept activations [32, 256] are relu's, made by its clamp_min; log_softmax's output is
  // saved too. The layers' outputs (addmm's) are freed between ops, once relu or log_softmax has
  // read them: "[memory]" gives back exactly what addmm allocated.
  std::map<std::string, int64_t> bytes;
  for (const memory_leak::AllocatedBy& op : result.allocated_by) bytes[op.op] = op.bytes;
  CHECK(bytes["aten::clamp_min"] == 2 * 32 * 256 * 4);
  CHECK(bytes["aten::log_softmax"] == 32 * 10 * 4);
  CHECK(bytes["aten::addmm"] == (2 * 32 * 256 + 32 * 10) * 4);
  CHECK(bytes["[memory]"] == -bytes["aten::addmm"]);
  CHECK_THAT(result.memory_table, Catch::Contains("Self CPU Mem"));
}

TEST_CASE("exercise 1: keeping loss.item() grows nothing", "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& kept_number = result.curves[1];
  REQUIRE(kept_number.keep == memory_leak::Keep::Item);
  CHECK(kept_number.bytes == std::vector<int64_t>(6, 0));
}

TEST_CASE("exercise 1: after backward a kept loss holds only its own bytes", "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& after_backward = result.curves[2];
  REQUIRE(after_backward.keep == memory_leak::Keep::LossAfterBackward);
  CHECK(after_backward.grows_linearly());
  CHECK(after_backward.bytes_per_step() == result.loss_bytes);
  CHECK(result.loss_bytes == 4);
}

TEST_CASE("exercise 1: the memory timeline's activations grow a forward pass a step only while losses are kept",
          "[exercises][memory_timeline]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  // What a kept loss holds, less the loss itself (made by the loss op, saved by no node: a temporary).
  const int64_t saved_per_step = result.held_bytes - result.loss_bytes;
  CHECK(saved_per_step == 66820);
  std::vector<int64_t> growing;
  for (int64_t step = 1; step <= 6; ++step) growing.push_back(step * saved_per_step);
  CHECK(result.curves[0].activation_bytes == growing);
  CHECK(result.curves[1].activation_bytes == std::vector<int64_t>(6, 0));
  CHECK(result.curves[2].activation_bytes == std::vector<int64_t>(6, 0));
}

TEST_CASE("exercise 2: bf16 autocast returns bf16 with an error at bf16's level, not float32's", "[exercises]") {
  const autocast_speed::Model small{.layers = 3, .width = 128, .batch = 32};
  const bench::Settings quick{.warmup_seconds = 0, .min_sample_seconds = 0, .seconds_per_case = 0, .min_samples = 3};
  const autocast_speed::Result result = autocast_speed::run(kCPU, kBFloat16, small, quick);
  CHECK(result.autocast_output_dtype == kBFloat16);
  // bf16 keeps 8 significant bits: one rounding of the output alone is up to 2^-9 relative; three
  // layers of bf16 inputs stay well under 2^-5. float32 arithmetic would err by ~2^-20.
  CHECK(result.max_relative_error > 0x1p-12);
  CHECK(result.max_relative_error < 0x1p-5);
  CHECK(result.float32.samples >= 3);
  CHECK(result.speedup > 0);
}

TEST_CASE("exercise 2: the verdict follows the measured spreads, and unreliable figures give none", "[exercises]") {
  using autocast_speed::Finding;
  const MachineLoad quiet{.wall_seconds = 1, .cpu_seconds = 1, .waiting_seconds = 0.01, .counts_waiting = true};
  auto stats = [&](double p10, double median, double p90) {
    return bench::Stats{.median = median, .min = p10, .p10 = p10, .p90 = p90, .samples = 100, .load = quiet};
  };
  autocast_speed::Result result;
  result.float32 = stats(7.8, 8.1, 8.7);
  result.autocast = stats(2.5, 2.6, 2.9);
  CHECK(autocast_speed::finding(result) == Finding::Faster);
  result.autocast = stats(9.0, 9.5, 10.0);
  CHECK(autocast_speed::finding(result) == Finding::Slower);
  result.autocast = stats(8.5, 8.8, 9.2);  // overlaps float32's 7.8-8.7
  CHECK(autocast_speed::finding(result) == Finding::NoClearDifference);
  result.autocast = stats(2.5, 8.8, 70);  // a median with a 10%-90% spread of 770%
  CHECK(autocast_speed::finding(result) == Finding::TooBusy);
  CHECK(bench::reliability(result.autocast) == "unreliable: spread 767%, over 25%");
  CHECK_THAT(bench::reliability(result.float32), Catch::StartsWith("reliable"));
  result.autocast = stats(2.5, 2.6, 2.9);
  result.float32.load.waiting_seconds = 1;  // measured while other processes held the CPUs half the time
  CHECK(autocast_speed::finding(result) == Finding::TooBusy);
  CHECK(bench::reliability(result.float32) == "unreliable: this process's threads waited 50% of their time for a CPU");
}

TEST_CASE("exercise 3: the chapter's advice follows the roofline verdict", "[exercises]") {
  using profiler::Bound;
  CHECK_THAT(hot_spots::advice({Bound::Compute}, 0.9), Catch::Contains("already at the hardware limit"));
  CHECK_THAT(hot_spots::advice({Bound::Compute}, 0.3), Catch::Contains("a bigger batch"));
  CHECK_THAT(hot_spots::advice({Bound::Memory}, 0.0), Catch::Contains("fuse"));
  CHECK_THAT(hot_spots::advice({Bound::Overhead}, 0.0), Catch::Contains("batch more"));
}

TEST_CASE("exercise 3: ranked by their median self time per step, the top ops of a training step are its matrix "
          "products",
          "[exercises]") {
  if (skip::under_sanitizer("instrumented element-wise kernels are slower than oneDNN's uninstrumented products by "
                            "more than the ranking's margin"))
    return;
  // One thread: a parallel region that waits for a descheduled helper thread would slow every call
  // of an element-wise op on a busy machine. On one thread a preemption slows the one call it hits,
  // by milliseconds, and the median over nine steps ignores up to four such steps per op. The
  // products' self time per step is over ten times any other op's on a quiet machine.
  const int threads = get_num_threads();
  set_num_threads(1);
  const profiler::MachinePeaks any_machine{1e11, 1e10};  // the ranking does not depend on the peaks
  const hot_spots::Result result = hot_spots::run(9, any_machine, "");
  set_num_threads(threads);
  REQUIRE(result.ops.size() >= 5);
  for (int rank : {0, 1}) {
    INFO("rank " << rank << ": " << result.ops[rank].key << ", " << result.ops[rank].step_seconds * 1e3
                 << " ms per step; rank 2: " << result.ops[2].key << ", " << result.ops[2].step_seconds * 1e3 << " ms");
    CHECK((result.ops[rank].key == "aten::mm" || result.ops[rank].key == "aten::addmm"));
  }
  CHECK(result.steps == 9);
  CHECK(result.table.find("aten::addmm") != std::string::npos);
}

TEST_CASE("exercise 3: in a permute-heavy step copy_ leads and the advice says layout", "[exercises]") {
  // Each step moves a 4 MiB tensor into two other layouts: contiguous() of a permuted tensor is
  // aten::contiguous > aten::clone > aten::empty_like + aten::copy_, as in PyTorch, so the copying
  // is copy_'s self time, and the step's one element-wise op reads the result once.
  const Tensor x = randn({64, 128, 128});
  const profiler::MachinePeaks any_machine{1e11, 1e10};  // the ranking does not depend on the peaks
  const hot_spots::Result result = hot_spots::profile_steps(
      5,
      [&] {
        const Tensor moved = x.permute({2, 0, 1}).contiguous().permute({2, 1, 0}).contiguous();
        (void)(moved * 2.0);
      },
      any_machine, "");
  REQUIRE(result.ops.size() >= 2);
  INFO("rank 0: " << result.ops[0].key << ", rank 1: " << result.ops[1].key << "\n" << result.table);
  CHECK(result.ops[0].key == "aten::copy_");
  CHECK(hot_spots::is_layout_op(result.ops[0].key));
  CHECK_THAT(hot_spots::conclusion(result, any_machine), Catch::Contains("copying tensors into another layout"));
  for (const hot_spots::HotSpot& spot : result.ops)  // the composites around the copy get no roofline
    if (spot.key == "aten::contiguous" || spot.key == "aten::clone" || spot.key == "aten::permute")
      CHECK_THAT(spot.withheld, Catch::Contains("no FLOPs and moves no bytes"));
}

namespace {

// A profiled op as judge() sees it: `calls` calls of one shape, the median step's time given.
hot_spots::HotSpot op(const std::string& key, double flops_per_call, double bytes_per_call, int64_t calls,
                      double step_seconds) {
  hot_spots::HotSpot spot;
  spot.key = key;
  profiler::EventAverage shape;
  shape.key = key;
  shape.count = calls;
  shape.flops = static_cast<int64_t>(flops_per_call) * calls;
  shape.bytes_read = static_cast<int64_t>(bytes_per_call) * calls;
  spot.shapes = {shape};
  spot.calls = calls;
  spot.step_seconds = spot.step_seconds_low = spot.step_seconds_high = step_seconds;
  return spot;
}

// One step of three ops on the modest CPU (100 GFLOP/s, 10 GB/s): a product at 50% of the peak
// (1 GFLOP in 20 ms), an element-wise op at its memory bound (10 MB in 1 ms) and one at 50 times
// its bound (1 KB in 5 us).
hot_spots::Result one_step(const MachineLoad& load) {
  hot_spots::Result result;
  result.steps = 1;
  result.load = load;
  result.ops = {op("aten::mm", 1e9, 1e6, 1, 0.02), op("aten::add", 0, 1e7, 1, 1e-3), op("aten::sub", 0, 1e3, 1, 5e-6)};
  return result;
}

const MachineLoad kQuiet{.wall_seconds = 1, .cpu_seconds = 1, .waiting_seconds = 0.01, .counts_waiting = true};
const MachineLoad kBusy{.wall_seconds = 1, .cpu_seconds = 1, .waiting_seconds = 1, .counts_waiting = true};
const profiler::MachinePeaks kModestMachine{1e11, 1e10};

}  // namespace

TEST_CASE("exercise 3: on a quiet machine every op gets its verdict and the chapter's advice", "[exercises]") {
  hot_spots::Result result = one_step(kQuiet);
  hot_spots::judge(result, kModestMachine);
  for (const hot_spots::HotSpot& spot : result.ops) CHECK(spot.withheld.empty());
  CHECK(result.ops[0].verdict.bound == profiler::Bound::Compute);
  CHECK(result.ops[0].fraction_of_peak == Approx(0.5));
  CHECK_THAT(result.ops[0].advice, Catch::Contains("a bigger batch"));
  CHECK(result.ops[1].verdict.bound == profiler::Bound::Memory);
  CHECK(result.ops[2].verdict.bound == profiler::Bound::Overhead);
  CHECK_THAT(result.ops[2].advice, Catch::Contains("batch more"));
}

TEST_CASE("exercise 3: on a busy machine the verdicts that waiting for a CPU could fake are withheld", "[exercises]") {
  hot_spots::Result result = one_step(kBusy);
  hot_spots::judge(result, kModestMachine);
  // Waiting only lengthens a time: compute- and memory-bound stand, overhead-bound and "below the
  // peak" (a small batch?) do not.
  CHECK(result.ops[0].withheld.empty());
  CHECK(result.ops[0].verdict.bound == profiler::Bound::Compute);
  CHECK_THAT(result.ops[0].advice, Catch::Contains("the machine was too busy"));
  CHECK(result.ops[1].withheld.empty());
  CHECK(result.ops[1].verdict.bound == profiler::Bound::Memory);
  CHECK_THAT(result.ops[2].withheld, Catch::Contains("too busy to judge"));
  // An op whose time jumped from step to step, so that its faster steps would be judged otherwise,
  // has no overhead verdict either, quiet or not; if its faster steps agree, the verdict stands.
  hot_spots::Result unsteady = one_step(kQuiet);
  unsteady.ops[2].step_seconds_low = 5e-7, unsteady.ops[2].step_seconds_high = 2e-5;  // 5 to 200 times its bound
  hot_spots::judge(unsteady, kModestMachine);
  CHECK_THAT(unsteady.ops[2].withheld, Catch::Contains("varied too much"));
  unsteady.ops[2].step_seconds_low = 2e-6;  // 20 to 200 times its bound
  hot_spots::judge(unsteady, kModestMachine);
  CHECK(unsteady.ops[2].withheld.empty());
  CHECK(unsteady.ops[2].verdict.bound == profiler::Bound::Overhead);
  // The product at 50% of the peak on its median step, 80% on its faster ones: how near the peak
  // it runs is not told.
  unsteady.ops[0].step_seconds_low = 0.0125, unsteady.ops[0].step_seconds_high = 0.04;
  hot_spots::judge(unsteady, kModestMachine);
  CHECK(unsteady.ops[0].verdict.bound == profiler::Bound::Compute);
  CHECK_THAT(unsteady.ops[0].advice, Catch::Contains("varied too much"));
}

TEST_CASE("exercise 3: peaks measured on a busy machine, or beaten by an op, give no verdicts", "[exercises]") {
  profiler::MachinePeaks busy_peaks = kModestMachine;
  busy_peaks.load = kBusy;
  hot_spots::Result result = one_step(kQuiet);
  hot_spots::judge(result, busy_peaks);
  for (const hot_spots::HotSpot& spot : result.ops)
    CHECK_THAT(spot.withheld, Catch::Contains("too busy to measure its peaks"));
  CHECK_FALSE(hot_spots::faster_than_peaks(result));

  const profiler::MachinePeaks too_low{1e10, 1e10};  // the product's 1 GFLOP "needs" 100 ms: it took 20
  hot_spots::judge(result, too_low);
  CHECK(hot_spots::faster_than_peaks(result));
  CHECK_THAT(result.ops[0].withheld, Catch::Contains("faster than the measured peaks allow"));
  CHECK(result.ops[1].withheld.empty());
}
