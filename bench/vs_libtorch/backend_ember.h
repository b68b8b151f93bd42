// The names workloads.h uses (as backend::), for ember. backend_torch.h gives the same names for libtorch; the
// workloads are written once against these, so both sides run exactly the same program.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "ember.h"

namespace ember_backend {

using Tensor = ember::Tensor;
using InferenceMode = ember::InferenceMode;
using Sizes = std::initializer_list<int64_t>;

inline void set_threads(int n) { ember::set_num_threads(n); }
inline void manual_seed(uint64_t seed) { ember::manual_seed(seed); }

inline Tensor randn(Sizes sizes, bool requires_grad = false) {
  return ember::randn(sizes, ember::Options().requires_grad(requires_grad));
}
inline Tensor randint(int64_t high, Sizes sizes) { return ember::randint(high, sizes); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return ember::mm(a, b); }
inline Tensor cross_entropy(const Tensor& input, const Tensor& target) { return ember::cross_entropy(input, target); }
inline std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

// A Sequential of Linear layers with ReLU between them: {512, 512, 512} is the chapter's `big`.
struct Network {
  ember::nn::Sequential layers;
  explicit Network(std::initializer_list<int64_t> widths) {
    const std::vector<int64_t> w(widths);
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (i > 0) layers->push_back(ember::nn::ReLU());
      layers->push_back(ember::nn::Linear(w[i], w[i + 1]));
    }
  }
  Tensor operator()(const Tensor& x) { return layers(x); }
  std::vector<Tensor> parameters() { return layers->parameters(); }
};

struct Sgd {
  ember::optim::SGD sgd;
  Sgd(std::vector<Tensor> parameters, double lr) : sgd(std::move(parameters), ember::optim::SGDOptions(lr)) {}
  void zero_grad() { sgd.zero_grad(); }
  void step() { sgd.step(); }
};

}  // namespace ember_backend
