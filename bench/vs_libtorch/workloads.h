// The workloads of the ember-vs-libtorch table, written once. Included after backend_ember.h in
// one translation unit and after backend_torch.h in another, so the same lines run on both.
// Each workload sets itself up (same seed, so both sides hold the same numbers: ember draws
// PyTorch's random streams) and returns what one timed call does.
#pragma once
#include <memory>
#include <vector>

#include "../harness.h"
#include "workload.h"

namespace {

// The FLOPs of one [256, 512] @ [512, 512] product: the chapter's forward takes two, its backward
// three more (the input gradient of the second Linear and both weight gradients; xb needs none).
constexpr double kChapterProductFlops = 2.0 * 256 * 512 * 512;

std::vector<vs_libtorch::Workload> workloads() {
  using backend::Network, backend::Sgd, backend::Sizes, backend::Tensor;
  std::vector<vs_libtorch::Workload> list;

  {  // The chapter's profiled line: forward and backward through big (gradients accumulate).
    backend::manual_seed(0);
    auto big = std::make_shared<Network>(Sizes{512, 512, 512});
    Tensor xb = backend::randn({256, 512});
    list.push_back({"chapter big(xb).sum().backward(), fp32", 0, [big, xb] { (*big)(xb).sum().backward(); },
                    [big, xb] { return backend::values((*big)(xb)); }, 5 * kChapterProductFlops});
  }
  {  // A small MLP's training step.
    backend::manual_seed(0);
    auto mlp = std::make_shared<Network>(Sizes{64, 64, 64, 10});
    auto sgd = std::make_shared<Sgd>(mlp->parameters(), 0.01);
    Tensor x = backend::randn({32, 64}), target = backend::randint(10, {32});
    list.push_back({"small MLP train step (64-64-64-10, batch 32)",
                    0,
                    [mlp, sgd, x, target] {
                      sgd->zero_grad();
                      backend::cross_entropy((*mlp)(x), target).backward();
                      sgd->step();
                    },
                    {}});
  }
  list.push_back({"randn of 10^6 floats", 0, [] { bench::keep(backend::randn({1000000})); },
                  [] {
                    backend::manual_seed(1);
                    return backend::values(backend::randn({1000000}));
                  }});
  {  // The chapter's forward alone, as an inference server runs it.
    backend::manual_seed(0);
    auto big = std::make_shared<Network>(Sizes{512, 512, 512});
    Tensor xb = backend::randn({256, 512});
    list.push_back({"big(xb) forward, fp32, inference_mode",
                    0,
                    [big, xb] {
                      backend::InferenceMode inference;
                      bench::keep((*big)(xb));
                    },
                    {},
                    2 * kChapterProductFlops});
  }
  {  // One tiny op: the per-op overhead, without and with autograd recording.
    Tensor a = backend::randn({1}), b = backend::randn({1});
    Tensor a_grad = backend::randn({1}, /*requires_grad=*/true);
    list.push_back({"a + b, 1 element, grad off", 0, [a, b] { bench::keep(a + b); }, {}});
    list.push_back({"a + b, 1 element, requires_grad", 0, [a_grad, b] { bench::keep(a_grad + b); }, {}});
  }
  {
    Tensor a = backend::randn({1024, 1024}), b = backend::randn({1024, 1024});
    const double flops = 2.0 * 1024 * 1024 * 1024;
    list.push_back({"fp32 mm 1024^3", flops, [a, b] { bench::keep(backend::mm(a, b)); }, {}, flops});
  }
  return list;
}

}  // namespace
