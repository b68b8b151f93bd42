// Why this benchmark: ember hands float32 matrix products to oneDNN, so the question is how much
// ember's own layers (argument checks, allocating the output, looking up the cached oneDNN
// primitive, wrapping pointers) cost on top of calling oneDNN directly. It times ember::mm next to
// a plain dnnl::matmul primitive created once and executed again and again (the same product
// ember asks oneDNN for), and prints ember/raw for each size (goal: >= 0.95). It also shows what
// bfloat16 operands buy over float32 through ember, at 1 thread and at the machine's thread count.
//
// Inputs are uniform values in [-1, 1) from std::mt19937 (ember's randn is not in yet).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "ember.h"
#include "harness.h"

namespace {

struct MatmulSize {
  int64_t M, K, N;  // [M, K] @ [K, N]
};

// The baseline: one oneDNN matmul primitive for row-major float32 [M, K] @ [K, N], built once,
// with its memory objects built once, then executed as often as asked.
class RawOneDnnMatmul {
 public:
  RawOneDnnMatmul(const MatmulSize& size, std::vector<float>& a, std::vector<float>& b)
      : engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_),
        c_(static_cast<size_t>(size.M * size.N)) {
    using tag = dnnl::memory::format_tag;
    const auto f32 = dnnl::memory::data_type::f32;
    dnnl::memory::desc a_desc({size.M, size.K}, f32, tag::ab);
    dnnl::memory::desc b_desc({size.K, size.N}, f32, tag::ab);
    dnnl::memory::desc c_desc({size.M, size.N}, f32, tag::ab);
    primitive_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_desc, b_desc, c_desc), engine_));
    a_memory_ = dnnl::memory(a_desc, engine_, a.data());
    b_memory_ = dnnl::memory(b_desc, engine_, b.data());
    c_memory_ = dnnl::memory(c_desc, engine_, c_.data());
  }

  const std::vector<float>& run() {
    primitive_.execute(stream_, {{DNNL_ARG_SRC, a_memory_}, {DNNL_ARG_WEIGHTS, b_memory_}, {DNNL_ARG_DST, c_memory_}});
    stream_.wait();
    return c_;
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::vector<float> c_;
  dnnl::matmul primitive_;
  dnnl::memory a_memory_, b_memory_, c_memory_;
};

double largest_magnitude(const std::vector<float>& values) {
  double largest = 0;
  for (float v : values) largest = std::max(largest, static_cast<double>(std::fabs(v)));
  return largest;
}

// GFLOP/s of a product that takes `seconds`: each of the M*N outputs needs K multiplies and K adds.
double gflops(const MatmulSize& size, double seconds) {
  return 2.0 * static_cast<double>(size.M * size.K * size.N) / seconds / 1e9;
}

struct Row {
  int threads;
  MatmulSize size;
  bench::Stats ember_fp32, raw_fp32, ember_bf16;
};

void print_rate(const MatmulSize& size, const bench::Stats& stats) {
  // The slowest 10% of samples give the low end of the rate, the fastest 10% the high end.
  std::printf("  %6.1f [%5.1f-%5.1f]", gflops(size, stats.median), gflops(size, stats.p90), gflops(size, stats.p10));
}

Row measure_size(int threads, const MatmulSize& size) {
  std::vector<float> a_values = bench::uniform_values(size.M * size.K, 1);
  std::vector<float> b_values = bench::uniform_values(size.K * size.N, 2);
  ember::Tensor a = ember::from_vector(a_values, {size.M, size.K});
  ember::Tensor b = ember::from_vector(b_values, {size.K, size.N});
  ember::Tensor a_bf16 = a.to(ember::kBFloat16), b_bf16 = b.to(ember::kBFloat16);
  RawOneDnnMatmul raw(size, a_values, b_values);

  // Same answer first: ember and raw oneDNN run the same float32 product; bfloat16 carries about
  // 3 significant digits, so it is compared to the float32 result with a tolerance to match.
  const std::vector<float> ember_result = ember::mm(a, b).to_vector<float>();
  const std::vector<float> raw_result = raw.run();
  const double scale = largest_magnitude(raw_result);
  char label[64];
  std::snprintf(label, sizeof label, "%lldx%lldx%lld, %d thread(s): ember vs raw", static_cast<long long>(size.M),
                static_cast<long long>(size.K), static_cast<long long>(size.N), threads);
  bench::check_same_values(label, ember_result, raw_result, 1e-5, 1e-5 * scale);
  std::snprintf(label, sizeof label, "%lldx%lldx%lld, %d thread(s): bf16 vs fp32", static_cast<long long>(size.M),
                static_cast<long long>(size.K), static_cast<long long>(size.N), threads);
  bench::check_same_values(label, ember::mm(a_bf16, b_bf16).to(ember::kFloat32).to_vector<float>(), ember_result, 1e-2,
                           2e-2 * scale);

  std::vector<bench::Case> cases = {
      {"ember fp32",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::mm(a, b));
       }},
      {"raw oneDNN fp32",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(raw.run());
       }},
      {"ember bf16",
       [&](int64_t calls) {
         for (int64_t i = 0; i < calls; ++i) bench::keep(ember::mm(a_bf16, b_bf16));
       }},
  };
  bench::Settings settings;
  settings.warmup_seconds = 0.3;
  settings.min_sample_seconds = 0.005;
  settings.seconds_per_case = 1.5;
  std::vector<bench::Stats> stats = bench::measure(cases, settings);
  return {threads, size, stats[0], stats[1], stats[2]};
}

}  // namespace

int main() {
  const int machine_threads = static_cast<int>(std::thread::hardware_concurrency());
  const std::vector<MatmulSize> sizes = {{256, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}};

  std::printf("ember matmul benchmark: ember::mm next to a raw oneDNN matmul primitive, and bf16 vs fp32\n");
  std::printf("(machine threads: %d; oneDNN %d.%d.%d)\n\n", machine_threads, dnnl_version()->major,
              dnnl_version()->minor, dnnl_version()->patch);
  std::vector<Row> rows;
  for (int threads : {1, machine_threads}) {
    ember::set_num_threads(threads);
    for (const MatmulSize& size : sizes) rows.push_back(measure_size(threads, size));
    if (machine_threads == 1) break;
  }

  std::printf("\nGFLOP/s, median [p90-p10 of samples]; ratios are of medians\n");
  std::printf("threads  M x K x N         ember fp32            raw oneDNN fp32       ember/raw"
              "   ember bf16            bf16/fp32\n");
  for (const Row& row : rows) {
    std::printf(
        "%7d  %-16s", row.threads,
        (std::to_string(row.size.M) + "x" + std::to_string(row.size.K) + "x" + std::to_string(row.size.N)).c_str());
    print_rate(row.size, row.ember_fp32);
    print_rate(row.size, row.raw_fp32);
    std::printf("  %9.3f ", row.raw_fp32.median / row.ember_fp32.median);
    print_rate(row.size, row.ember_bf16);
    std::printf("  %9.2f\n", row.ember_fp32.median / row.ember_bf16.median);
  }
  std::printf("\nGoal: ember/raw >= 0.95 at every size. bf16/fp32 > 1 means bfloat16 is faster.\n");
  return 0;
}
