// The pitfalls the chapter names beside its script, each shown live in a short section:
//   1. a dtype error from float64 data (C++'s `double`, like NumPy's default float64);
//   2. a device error waiting to happen: a submodule kept in a plain std::vector and a tensor
//      member not registered as a buffer are invisible to parameters(), buffers() and to(device);
//   3. the version counter catching an in-place edit of a tensor saved for backward;
//   4. benchmarking discipline: same inputs, outputs checked, warm-up, median and spread.
//   build/demos/pitfalls
#include <chrono>
#include <cstdio>

#include "bench/harness.h"
#include "command_line.h"
#include "ember.h"

using namespace ember;

namespace {

void dtype_from_double_data() {
  std::printf("—— 1. float64 data meets a float32 model ——\n");
  const std::vector<double> readings = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};  // double, as NumPy's default
  const Tensor x = from_vector(readings, {2, 4});
  nn::Linear layer(4, 2, /*bias=*/false);
  std::printf("data: %s, weight: %s\n", scalar_type_name(x.dtype()), scalar_type_name(layer->weight().dtype()));
  try {
    layer(x);
  } catch (const Error& e) {
    std::printf("  layer(x) raises: %s\n", e.what());
  }
  std::printf("  the fix, where the data enters: layer(x.to(kFloat32)) gives %s\n\n",
              scalar_type_name(layer(x.to(kFloat32)).dtype()));
}

// A model with two mistakes: its hidden layer lives in a plain std::vector, and its scale is a
// plain Tensor member. Only register_module / register_buffer (or ModuleList) make them visible.
class Unregistered : public nn::Module {
 public:
  Unregistered() {
    register_module("head", head_);
    hidden_.emplace_back(4, 4);
  }
  Tensor forward(const Tensor& x) override { return head_(hidden_[0](x) * scale_); }

 private:
  nn::Linear head_{4, 2};
  std::vector<nn::Linear> hidden_;  // invisible to parameters(), to(), train()
  Tensor scale_ = full({4}, 0.5);   // invisible to buffers() and to()
};

class Registered : public nn::Module {
 public:
  Registered() {
    register_module("head", head_);
    register_module("hidden", hidden_);
    register_buffer("scale", full({4}, 0.5));
  }
  Tensor forward(const Tensor& x) override { return head_(hidden_(x) * buffer("scale")); }

 private:
  nn::Linear head_{4, 2};
  nn::Linear hidden_{4, 4};
};

void device_from_unregistered_parts() {
  std::printf("—— 2. a submodule in a plain std::vector, a buffer never registered ——\n");
  Unregistered model;
  Registered fixed;
  auto count = [](size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  std::printf("Unregistered: %s, %s; Registered: %s, %s\n", count(model.parameters().size(), "parameter").c_str(),
              count(model.buffers().size(), "buffer").c_str(), count(fixed.parameters().size(), "parameter").c_str(),
              count(fixed.buffers().size(), "buffer").c_str());
  for (const auto& [name, parameter] : model.named_parameters())
    std::printf("  Unregistered.parameters() has %s\n", name.c_str());
  std::printf("  the hidden layer's weight and bias are missing: an optimizer never updates them,\n"
              "  and to(device) never moves them, nor the scale tensor.\n");
  if (cuda::is_available()) {
    model.to(Device(DeviceType::CUDA, 0));
    try {
      model(randn({2, 4}).to(Device(DeviceType::CUDA, 0)));
    } catch (const Error& e) {
      std::printf("  model.to(cuda:0), then a forward pass raises: %s\n", e.what());
    }
  } else {
    std::printf("  No GPU here, so the error is not shown live: model.to(cuda:0) would move only head's\n"
                "  parameters, and the first product would meet a CPU weight: \"Expected all tensors to be\n"
                "  on the same device, but found at least two devices, ...\".\n");
  }
  std::printf("\n");
}

void version_counter_catches_in_place_edit() {
  std::printf("—— 3. an in-place edit of a tensor saved for backward ——\n");
  const Tensor w = randn({3}, Options().requires_grad());
  Tensor s = w.sigmoid();  // sigmoid's backward needs its output: s is saved, at version 0
  std::printf("s = w.sigmoid(): s._version() = %u\n", s._version());
  s.mul_(2);
  std::printf("s.mul_(2):       s._version() = %u\n", s._version());
  try {
    s.sum().backward();
  } catch (const Error& e) {
    std::printf("  backward raises: %s\n", e.what());
  }
  const Tensor doubled = w.sigmoid() * 2;  // out of place: the saved output stays as it was
  doubled.sum().backward();
  std::printf("  the fix, out of place (w.sigmoid() * 2), runs backward: w.grad() = %s\n\n",
              w.grad().tolist_str().c_str());
}

void benchmark_with_discipline() {
  std::printf("—— 4. measuring two versions of the same computation ——\n");
  const Tensor a = randn({256, 256}), b = randn({256, 256});
  auto as_product = [&] { return matmul(a, b); };
  auto as_broadcast = [&] { return (a.unsqueeze(2) * b.unsqueeze(0)).sum({1}); };
  const auto start = std::chrono::steady_clock::now();
  Tensor first = as_product();
  const double cold_ms = bench::seconds_since(start) * 1e3;
  std::printf("same inputs, same outputs? %s (they compute the same thing, or timing them means nothing)\n",
              allclose(first, as_broadcast(), 1e-4, 1e-4) ? "yes" : "NO");
  const std::vector<bench::Stats> stats = bench::measure({{"matmul",
                                                           [&](int64_t calls) {
                                                             for (int64_t i = 0; i < calls; ++i)
                                                               bench::keep(as_product());
                                                           }},
                                                          {"broadcast",
                                                           [&](int64_t calls) {
                                                             for (int64_t i = 0; i < calls; ++i)
                                                               bench::keep(as_broadcast());
                                                           }}},
                                                         {.seconds_per_case = 0.5});
  std::printf("  first matmul call, cold: %.3f ms; warmed up, median %.3f ms (10%%-90%%: %.3f-%.3f ms)\n", cold_ms,
              stats[0].median * 1e3, stats[0].p10 * 1e3, stats[0].p90 * 1e3);
  std::printf("  broadcast-multiply-sum:  median %.3f ms (10%%-90%%: %.3f-%.3f ms): matmul is %.1fx faster\n",
              stats[1].median * 1e3, stats[1].p10 * 1e3, stats[1].p90 * 1e3, stats[1].median / stats[0].median);
  std::printf("  a single cold timing would have told another story; compare medians of warmed-up, interleaved runs\n");
}

}  // namespace

int pitfalls() {
  manual_seed(0);
  dtype_from_double_data();
  device_from_unregistered_parts();
  version_counter_catches_in_place_edit();
  benchmark_with_discipline();
  return 0;
}

int main(int argc, char** argv) { return demos::run(argc, argv, "", 0, pitfalls); }
