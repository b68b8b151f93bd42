// ember against libtorch 1.13: the same workloads (workloads.h), at 1 and 2 threads (OpenMP's
// count, which oneDNN and Eigen follow, and OpenBLAS's, which at::set_num_threads leaves alone).
// Each side is timed in a process of its own, started afresh for every (round, thread count,
// side): worker threads a library leaves spinning after its work (OpenBLAS's spin for about a
// tenth of a second) would otherwise slow whatever runs next. The rounds alternate ember and
// libtorch, so a slow patch of the machine hits both alike. OPENBLAS_CORETYPE is dropped from the
// environment of those processes. Prints markdown tables of medians and of fastest samples, then
// each product-bound workload against its floor: its products' FLOPs at one core's FMA peak.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "../harness.h"
#include "fma_peak.h"
#include "workload.h"

namespace {

std::string shown(double seconds, double flops) {
  char text[64];
  if (flops > 0) std::snprintf(text, sizeof text, "%.1f GFLOP/s", flops / seconds / 1e9);
  else if (seconds < 1e-6) std::snprintf(text, sizeof text, "%.0f ns", seconds * 1e9);
  else if (seconds < 1e-3) std::snprintf(text, sizeof text, "%.1f µs", seconds * 1e6);
  else std::snprintf(text, sizeof text, "%.2f ms", seconds * 1e3);
  return text;
}

// The timing process: one side, one thread count; prints "index median min" per workload.
int time_one_side(const std::string& side, int threads, double seconds, const std::string& only) {
  std::vector<vs_libtorch::Workload> workloads = side == "ember" ? ember_workloads() : torch_workloads();
  (side == "ember" ? ember_set_threads : torch_set_threads)(threads);
  bench::Settings settings;
  settings.seconds_per_case = seconds;
  for (size_t i = 0; i < workloads.size(); ++i) {
    if (workloads[i].name.find(only) == std::string::npos) continue;
    const vs_libtorch::Workload& w = workloads[i];
    const bench::Stats s = bench::measure({{w.name,
                                            [&w](int64_t calls) {
                                              for (int64_t c = 0; c < calls; ++c) w.call();
                                            }}},
                                          settings)[0];
    std::printf("%zu %.9g %.9g\n", i, s.median, s.min);
  }
  return 0;
}

struct Figures {
  std::vector<double> medians, mins;  // one per round
};

}  // namespace

int main(int argc, char* argv[]) {
  if (argc == 6 && std::string(argv[1]) == "--time")
    return time_one_side(argv[2], std::atoi(argv[3]), std::atof(argv[4]), argv[5]);
  // `vs_libtorch [SECONDS [WORDS]]`: measure each case for SECONDS per round (default 0.5), only
  // the workloads whose name contains WORDS (all by default).
  const std::string seconds = argc > 1 ? argv[1] : "0.5";
  const std::string only = argc > 2 ? argv[2] : "";
  constexpr int kRounds = 3;
  char self[4096] = {};  // this program's path (popen's shell would read /proc/self as its own)
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  unsetenv("OPENBLAS_CORETYPE");  // for the timing processes: OpenBLAS reads it when it loads

  std::printf("ember vs libtorch 1.13 (BLAS: %s), %d interleaved rounds of one process per side\n\n",
              torch_uses_openblas() ? "OpenBLAS, threads matched" : "not OpenBLAS: libtorch's mm is slow here",
              kRounds);
  std::vector<vs_libtorch::Workload> ember = ember_workloads(), torch = torch_workloads();
  for (size_t i = 0; i < ember.size(); ++i)
    if (ember[i].out && ember[i].name.find(only) != std::string::npos)
      bench::check_same_values(ember[i].name, ember[i].out(), torch[i].out(), 1e-4, 1e-5);

  std::map<std::string, Figures> figures;  // key: "side threads index"
  for (int round = 0; round < kRounds; ++round)
    for (int threads : {1, 2})
      for (const char* side : {"ember", "torch"}) {
        const std::string command = std::string(self) + " --time " + std::string(side) + " " + std::to_string(threads) +
                                    " " + seconds + " '" + only + "'";
        FILE* child = popen(command.c_str(), "r");
        size_t index;
        double median, min;
        while (child != nullptr && std::fscanf(child, "%zu %lf %lf", &index, &median, &min) == 3) {
          Figures& f = figures[std::string(side) + " " + std::to_string(threads) + " " + std::to_string(index)];
          f.medians.push_back(median);
          f.mins.push_back(min);
        }
        if (child == nullptr || pclose(child) != 0) {
          std::printf("the timing process failed: %s\n", command.c_str());
          return 1;
        }
      }

  // Medians over all rounds' medians; fastest over all rounds' fastest samples (on a shared
  // machine the figure least disturbed by other work).
  auto figure = [&](const char* side, int threads, size_t index, bool fastest) {
    const Figures& f = figures[std::string(side) + " " + std::to_string(threads) + " " + std::to_string(index)];
    return fastest ? *std::min_element(f.mins.begin(), f.mins.end()) : bench::percentile(f.medians, 0.5);
  };
  for (bool fastest : {false, true}) {
    std::printf("\n%s\n| workload | ember 1T | libtorch 1T | ember/libtorch | ember 2T | libtorch 2T | ember/libtorch "
                "| ember 2T/1T |\n|---|---|---|---|---|---|---|---|\n",
                fastest ? "fastest samples" : "medians");
    for (size_t i = 0; i < ember.size(); ++i) {
      if (ember[i].name.find(only) == std::string::npos) continue;
      const double e1 = figure("ember", 1, i, fastest), t1 = figure("torch", 1, i, fastest),
                   e2 = figure("ember", 2, i, fastest), t2 = figure("torch", 2, i, fastest);
      const double flops = ember[i].flops;
      std::printf("| %s | %s | %s | %.2f | %s | %s | %.2f | %.2f |\n", ember[i].name.c_str(), shown(e1, flops).c_str(),
                  shown(t1, flops).c_str(), e1 / t1, shown(e2, flops).c_str(), shown(t2, flops).c_str(), e2 / t2,
                  e2 / e1);
    }
  }

  // The floor, at one thread, from the fastest samples.
  const vs_libtorch::FmaPeak fma = vs_libtorch::fma_peak_one_thread();
  const double peak = fma.flops_per_second;
  if (peak == 0) return 0;
  std::printf("\nfloor: one core's float32 FMA peak, measured now (%s FMAs), is %.1f GFLOP/s; at it, a workload's\n"
              "matrix products alone take the time below. Fastest samples at 1 thread, each as a share of the peak:\n"
              "| workload | products at peak | libtorch 1T | share | ember 1T | share | 0.8x libtorch needs |\n"
              "|---|---|---|---|---|---|---|\n",
              fma.width, peak / 1e9);
  for (size_t i = 0; i < ember.size(); ++i) {
    const double flops = ember[i].product_flops;
    if (flops == 0 || ember[i].name.find(only) == std::string::npos) continue;
    const double t1 = figure("torch", 1, i, true), e1 = figure("ember", 1, i, true), floor = flops / peak;
    std::printf("| %s | %s | %s | %.0f%% | %s | %.0f%% | %.0f%% |\n", ember[i].name.c_str(), shown(floor, 0).c_str(),
                shown(t1, 0).c_str(), 100 * floor / t1, shown(e1, 0).c_str(), 100 * floor / e1,
                100 * floor / (0.8 * t1));
  }
}
