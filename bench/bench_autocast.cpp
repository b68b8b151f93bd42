// bf16 autocast, measured side by side: the chapter's network big(xb) forward in float32 and under
// CPU bf16 autocast (1 and 2 threads), a bf16 1024^3 mm through ember next to a raw oneDNN bf16
// matmul primitive, and what this CPU offers for bf16 (cpu_capabilities). On a CPU without bf16
// instructions (no avx512_bf16 / AMX), oneDNN emulates bf16 and the chapter's warning holds:
// autocast makes the forward slower, not faster.
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>

#include "ember.h"
#include "harness.h"

namespace {

using namespace ember;

// A raw oneDNN bf16 matmul [n, n] @ [n, n] -> bf16, built once.
class RawOneDnnBf16 {
 public:
  RawOneDnnBf16(int64_t n, const Tensor& a, const Tensor& b)
      : engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_),
        c_(zeros({n, n}, kBFloat16)) {
    using tag = dnnl::memory::format_tag;
    const auto bf16 = dnnl::memory::data_type::bf16;
    dnnl::memory::desc desc({n, n}, bf16, tag::ab);
    primitive_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(desc, desc, desc), engine_));
    a_ = dnnl::memory(desc, engine_, a.raw_data());
    b_ = dnnl::memory(desc, engine_, b.raw_data());
    c_memory_ = dnnl::memory(desc, engine_, c_.raw_data());
  }
  const Tensor& run() {
    primitive_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_memory_}});
    stream_.wait();
    return c_;
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  Tensor c_;
  dnnl::matmul primitive_;
  dnnl::memory a_, b_, c_memory_;
};

void print(const char* name, const bench::Stats& stats, double unit, const char* unit_name) {
  std::printf("  %-40s %9.3f %s  [%8.3f - %8.3f]\n", name, stats.median * unit, unit_name, stats.p10 * unit,
              stats.p90 * unit);
}

}  // namespace

int main() {
  std::printf("ember autocast benchmark\n");
  std::printf("CPU: %s -> bf16 %s\n\n", cpu_capabilities().str().c_str(),
              cpu_capabilities().bf16_faster_than_fp32() ? "has native instructions (expect a speed-up)"
                                                         : "is emulated (expect autocast to be slower)");
  manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  InferenceMode inference;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Tensor fp32 = big(xb);
    Tensor bf16;
    {
      AutocastGuard autocast(DeviceType::CPU);
      bf16 = big(xb);
    }
    bench::check_same_values("big(xb): bf16 autocast vs fp32", bf16.to(kFloat32).to_vector<float>(),
                             fp32.to_vector<float>(), 2e-2, 2e-2);
    auto stats = bench::measure({{"fp32",
                                  [&](int64_t calls) {
                                    for (int64_t i = 0; i < calls; ++i) bench::keep(big(xb));
                                  }},
                                 {"bf16", [&](int64_t calls) {
                                    AutocastGuard autocast(DeviceType::CPU);
                                    for (int64_t i = 0; i < calls; ++i) bench::keep(big(xb));
                                  }}});
    std::printf("big(xb) forward, %d thread(s), ms per call, median [p10 - p90]\n", threads);
    print("float32", stats[0], 1e3, "ms");
    print("bf16 autocast", stats[1], 1e3, "ms");
    std::printf("  bf16 / fp32 time: %.2f   (PyTorch 1.13 autocast on the issue's machine: 0.744 ms at 1 thread)\n\n",
                stats[1].median / stats[0].median);
  }

  set_num_threads(1);
  const int64_t n = 1024;
  Tensor a = randn({n, n}).to(kBFloat16), b = randn({n, n}).to(kBFloat16);
  std::unique_ptr<RawOneDnnBf16> raw;
  try {
    raw = std::make_unique<RawOneDnnBf16>(n, a, b);
  } catch (const dnnl::error&) {
    auto stats = bench::measure({{"ember", [&](int64_t calls) {
                                    for (int64_t i = 0; i < calls; ++i) bench::keep(mm(a, b));
                                  }}});
    std::printf("1024^3 bf16 mm, 1 thread: ember %.1f GFLOP/s; oneDNN has no bf16 matmul on this CPU (it needs "
                "AVX-512), so there is no raw baseline: ember widens bf16 to float32 here\n",
                2.0 * n * n * n / stats[0].median / 1e9);
    return 0;
  }
  bench::check_same_values("1024^3 bf16 mm: ember vs raw oneDNN", mm(a, b).to(kFloat32).to_vector<float>(),
                           raw->run().to(kFloat32).to_vector<float>(), 1e-2, 1e-1);
  auto stats = bench::measure({{"ember",
                                [&](int64_t calls) {
                                  for (int64_t i = 0; i < calls; ++i) bench::keep(mm(a, b));
                                }},
                               {"raw", [&](int64_t calls) {
                                  for (int64_t i = 0; i < calls; ++i) bench::keep(raw->run());
                                }}});
  const double flops = 2.0 * n * n * n;
  std::printf("1024^3 bf16 mm, 1 thread, GFLOP/s: ember %.1f, raw oneDNN %.1f, ember/raw %.3f\n",
              flops / stats[0].median / 1e9, flops / stats[1].median / 1e9, stats[1].median / stats[0].median);
}
