// ember::compile on the chapter's advice for a memory-bound hot spot: "fuse it". The block
// layer_norm(x * sigmoid(x) + bias + residual) (exercises/compiled_block.h) is profiled forward and
// backward, eagerly and compiled, on one thread: the five ops with the most self time, each with
// its roofline verdict, before and after. Eagerly every op is its own pass over 16 MiB tensors and
// memory-bound; compiled, one kernel forward and one backward replace 13 and 38 ops. Their
// arithmetic alone, set against the time their bytes take, says what bounds them on this core. The
// generated source, the graph and the plan are written to the output folder, as
// EMBER_COMPILE_DEBUG=1 would.
//   build/demos/compile_block [output folder]   (default ./compile-output)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "command_line.h"
#include "exercises/compiled_block.h"

using namespace ember;

namespace {

constexpr int64_t kRows = 4096, kFeatures = 1024;  // 16 MiB a tensor: far beyond L2
constexpr int kSteps = 5;

struct Profile {
  double milliseconds = 0;  // the median step
  double megabytes = 0;     // what a step's ops read and wrote, as the profiler counts them
  int64_t events = 0;       // op and kernel calls in a step
};

// Profiles kSteps calls of `step` after three warm-up calls; prints the top five by self time with
// their verdicts.
Profile profile(const char* title, const std::function<void()>& step, const profiler::MachinePeaks& peaks) {
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> times;
  profiler::Profiler prof;
  for (int i = 0; i < kSteps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    step();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  prof.stop();
  std::sort(times.begin(), times.end());
  Profile result{times[kSteps / 2], 0, 0};
  const profiler::KeyAverages averages = prof.key_averages();
  for (const profiler::EventAverage& row : averages.rows()) {
    result.megabytes += 1e-6 * static_cast<double>(row.bytes_read + row.bytes_written) / kSteps;
    if (row.bytes_read + row.bytes_written > 0) result.events += row.count / kSteps;
  }
  std::printf("%s: %.1f ms a step (median of %d, profiled); its ops moved %.0f MB in %lld calls that move "
              "bytes\n\n%s\n",
              title, result.milliseconds, kSteps, result.megabytes, static_cast<long long>(result.events),
              profiler::roofline_table(averages, peaks, 5).c_str());
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  return demos::run(argc, argv, "[output folder]", 1, [&] {
    const std::string folder = demos::output_folder(argc, argv, "compile-output");
    set_num_threads(1);
    manual_seed(0);
    const profiler::MachinePeaks peaks = profiler::machine_peaks();
    exercises::compiled_block::Block block(kFeatures);
    CompiledFunction compiled = block.compiled();
    const Tensor x = randn({kRows, kFeatures}).requires_grad_(true);
    const Tensor residual = randn({kRows, kFeatures}).requires_grad_(true);
    const Tensor g = randn({kRows, kFeatures});
    const std::vector<Tensor> wrt = {x, residual, block.bias, block.norm_weight, block.norm_bias};
    std::printf("The block layer_norm(x * sigmoid(x) + bias + residual) on [%lld, %lld], forward and backward, "
                "one thread.\n\n",
                static_cast<long long>(kRows), static_cast<long long>(kFeatures));

    const Profile eager = profile(
        "Eager",
        [&] {
          autograd::grad(block({x, residual}), wrt, {g});
        },
        peaks);
    compiled({x, residual});  // the capture, the kernels' backward, the build
    std::printf("ember::compile found:\n%s\n", compiled.explain().c_str());
    const Profile fused = profile(
        "Compiled",
        [&] {
          autograd::grad(compiled({x, residual}), wrt, {g});
        },
        peaks);
    if (compiled.stats().eager_runs > 0) {  // no compiler: it warned, and the block ran eagerly
      std::printf("No kernel was built, so the compiled block ran eagerly (%.1f ms against %.1f).\n",
                  fused.milliseconds, eager.milliseconds);
    } else {
      std::printf("Compiled is %.1fx faster: the memory-bound ops became kernels that pass over memory once, %.0f "
                  "MB a step instead of %.0f.\n",
                  eager.milliseconds / fused.milliseconds, fused.megabytes, eager.megabytes);
      // The roofline counts no FLOPs for point-wise work, so it calls every kernel memory-bound; the
      // kernels' time without memory says whether one core's arithmetic keeps up with its bytes.
      const double bytes_ms = 1e3 * static_cast<double>(exercises::compiled_block::bytes_streamed(kRows, kFeatures)) /
                              peaks.bytes_per_second;
      const double arithmetic_ms = 1e3 * exercises::compiled_block::arithmetic_seconds(block, kRows, kFeatures);
      std::printf("A compiled step's bytes take %.1f ms at the memory's %.0f GB/s, its arithmetic alone %.1f ms (the "
                  "same kernels on [32, %lld] slices, which stay in the cache). On this core %s.\n",
                  bytes_ms, peaks.bytes_per_second / 1e9, arithmetic_ms, static_cast<long long>(kFeatures),
                  arithmetic_ms > bytes_ms
                      ? "the arithmetic is the bound: the roofline's verdict counts no FLOPs for point-wise work"
                      : "memory is the bound, as the roofline says");
    }

    std::ofstream(folder + "/graph.txt") << compiled.graph_text();
    std::ofstream(folder + "/plan.txt") << compiled.plan_text();
    std::ofstream(folder + "/output_code.cpp") << compiled.source();
    std::ofstream(folder + "/backward_0.cpp") << compiled.backward_source(0);
    std::printf("The graph, the plan and the generated source are in %s/.\n", folder.c_str());
    return 0;
  });
}
