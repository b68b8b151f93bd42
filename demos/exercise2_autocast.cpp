// The chapter's exercise 2: measure autocast's speedup and error. A stack of Linear layers runs in
// float32 and under bf16 autocast on the same input; the outputs are compared, both are warmed up
// and timed in interleaved rounds (median and 10th-90th percentile spread), and the speedup is
// the ratio of medians. On a GPU (where present) fp16 and bf16 are measured too.
//
// The verdict follows what was measured, not what the CPU's flags promise: autocast is called
// faster (or slower) only when the two spreads do not overlap, and not at all when the figures are
// unreliable (bench::Stats::reliable: the machine was busy, or a spread too wide), in which case
// the program says the machine was too busy to judge. Whether this CPU has bf16 instructions is
// printed as information: it says what to expect, the measurement says what happened.
//   build/demos/exercise2_autocast [output folder]   (default ./exercise-output)
#include <cstdio>
#include <iostream>

#include "command_line.h"
#include "exercises/autocast_speed.h"
#include "exercises/chart.h"

using namespace ember;
using namespace exercises;

namespace {

constexpr double kMilliseconds = 1e3;

using autocast_speed::Finding;

void report(const autocast_speed::Result& r, std::vector<Bar>& bars, std::vector<std::string>& notes) {
  const std::string device = r.device.str();
  const std::string low = scalar_type_name(r.low_precision);
  std::printf("%s, %s autocast: the Linear output is %s\n", device.c_str(), low.c_str(),
              scalar_type_name(r.autocast_output_dtype));
  std::printf("  output error vs float32: max abs %.3g, max relative %.3g (%s keeps %d mantissa bits: ~%.1g per "
              "rounding)\n",
              r.max_abs_error, r.max_relative_error, low.c_str(), r.low_precision == kBFloat16 ? 7 : 10,
              r.low_precision == kBFloat16 ? 0x1p-8 : 0x1p-11);
  for (const auto& [name, stats] :
       std::vector<std::pair<std::string, bench::Stats>>{{"float32", r.float32}, {low + " autocast", r.autocast}}) {
    std::printf("  %-18s median %8.3f ms per forward   (10%%-90%%: %.3f-%.3f ms, spread %.0f%%, %d samples)\n",
                name.c_str(), stats.median * kMilliseconds, stats.p10 * kMilliseconds, stats.p90 * kMilliseconds,
                100 * stats.spread(), stats.samples);
    bars.push_back(
        {device + " " + name, stats.median * kMilliseconds, stats.p10 * kMilliseconds, stats.p90 * kMilliseconds});
  }
  std::printf("  speedup (float32 median / autocast median): %.2fx\n", r.speedup);
  const Finding found = autocast_speed::finding(r);
  char note[160];
  std::snprintf(note, sizeof note, "%s %s: %.2fx %s, max relative error %.1e", device.c_str(), low.c_str(), r.speedup,
                found == Finding::TooBusy             ? "(machine too busy to judge)"
                : found == Finding::NoClearDifference ? "(within the spreads)"
                                                      : "speed-up",
                r.max_relative_error);
  notes.push_back(note);
  std::printf("  while measuring, this process's threads %s\n", r.float32.load.str().c_str());
  switch (found) {
    case Finding::Faster:
      std::printf("  => autocast is faster here: %.2fx, beyond both spreads.\n\n", r.speedup);
      break;
    case Finding::Slower:
      std::printf("  => autocast is slower here: %.2fx, beyond both spreads.\n\n", r.speedup);
      break;
    case Finding::NoClearDifference: std::printf("  => no clear difference: the two spreads overlap.\n\n"); break;
    case Finding::TooBusy:
      if (r.float32.load.busy())
        std::printf("  => the machine was too busy to judge: other processes held the CPUs %.0f%% of the time this\n"
                    "     process wanted one. No verdict; run it again on a quiet machine.\n\n",
                    100 * r.float32.load.waiting_fraction());
      else
        std::printf("  => no verdict: the figures vary too much to judge (float32 %s; autocast %s).\n\n",
                    bench::reliability(r.float32).c_str(), bench::reliability(r.autocast).c_str());
      break;
  }
}

// Why the finding is what it is on this CPU: what its bf16 instructions lead one to expect, set
// beside what was measured.
void explain(const autocast_speed::Result& r, const CpuCapabilities& cpu) {
  const Finding found = autocast_speed::finding(r);
  if (found == Finding::TooBusy) return;
  if (cpu.bf16_faster_than_fp32() && found == Finding::Faster)
    std::printf("As its bf16 instructions promise, the products run faster in bf16; what remains in float32\n"
                "(the casts, the ReLUs, the bias) limits the end-to-end speedup.\n");
  else if (cpu.bf16_faster_than_fp32())
    std::printf("This CPU multiplies bf16 natively, yet autocast was not faster here: at this size the casts\n"
                "and the float32 parts cost what the bf16 products save. Measure before you assume.\n");
  else if (found == Finding::Faster)
    std::printf("This CPU has no bf16 matrix instructions, yet autocast was faster here: the narrower data\n"
                "moves faster even where the arithmetic is widened to float32.\n");
  else
    std::printf("This CPU has no bf16 matrix instructions: the bf16 products are widened to float32 inside, so\n"
                "autocast only adds casts and gains nothing here, as the chapter warns. Its error is the price\n"
                "without the gain; on a CPU with AMX or avx512_bf16, or on a GPU, the same code runs faster.\n");
}

}  // namespace

int autocast_exercise(const std::string& folder) {
  const autocast_speed::Model model;
  const bench::Settings settings{.warmup_seconds = 0.3, .seconds_per_case = 2.0, .min_samples = 10};
  std::printf(
      "A stack of %lld Linear(%lld, %lld) layers with ReLU between, batch %lld; the same input for every run.\n",
      static_cast<long long>(model.layers), static_cast<long long>(model.width), static_cast<long long>(model.width),
      static_cast<long long>(model.batch));
  const CpuCapabilities& cpu = cpu_capabilities();
  std::printf("This CPU: %s. bf16 matrix instructions (avx512_bf16 or AMX): %s.\n\n", cpu.str().c_str(),
              cpu.bf16_faster_than_fp32() ? "yes" : "no");

  std::vector<Bar> bars;
  const auto on_cpu = autocast_speed::run(kCPU, kBFloat16, model, settings);
  std::vector<std::string> notes;
  report(on_cpu, bars, notes);
  explain(on_cpu, cpu);

  if (cuda::is_available()) {
    // A GPU needs far bigger products before the tensor cores' bf16/fp16 speed shows end to end.
    const autocast_speed::Model gpu_model{.layers = 4, .width = 8192, .batch = 8192};
    std::printf("On the GPU: %lld Linear(%lld, %lld) layers, batch %lld.\n", static_cast<long long>(gpu_model.layers),
                static_cast<long long>(gpu_model.width), static_cast<long long>(gpu_model.width),
                static_cast<long long>(gpu_model.batch));
    for (DType low : {kFloat16, kBFloat16}) {
      try {
        report(autocast_speed::run(Device(DeviceType::CUDA, 0), low, gpu_model, settings), bars, notes);
      } catch (const Error& e) {
        std::printf("The CUDA run (%s) stopped: %s\n", scalar_type_name(low), e.what());
      }
    }
  } else {
    std::printf("No CUDA GPU here: the GPU half of the exercise (fp16 and bf16 on tensor cores) is not run.\n");
  }
  std::cout << "\n"
            << write_bar_chart(folder + "/exercise2_autocast", bars, "milliseconds per forward",
                               {.title = "Exercise 2: float32 vs autocast, the same Linear stack",
                                .x_label = "device and precision",
                                .y_label = "ms per forward pass (median; whisker: 10th-90th percentile)",
                                .notes = notes});
  return 0;
}

int main(int argc, char** argv) {
  return demos::run(argc, argv, "[output folder]   (default ./exercise-output)", 1,
                    [&] { return autocast_exercise(demos::output_folder(argc, argv, "exercise-output")); });
}
