// The names workloads.h uses (as backend::), for libtorch (Debian's libtorch-dev 1.13). Its gemm is OpenBLAS's
// when OpenBLAS provides libblas.so.3, whose thread count at::set_num_threads does not set: it is
// set here as well, through openblas_set_num_threads when the loaded BLAS has it.
#pragma once
#include <dlfcn.h>
#include <torch/torch.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace torch_backend {

using Tensor = torch::Tensor;
using InferenceMode = c10::InferenceMode;
using Sizes = std::initializer_list<int64_t>;

// True when the loaded BLAS is OpenBLAS (it exports openblas_set_num_threads).
inline bool set_openblas_threads(int n) {
  using SetThreads = void (*)(int);
  auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set != nullptr) set(n);
  return set != nullptr;
}
inline void set_threads(int n) {
  at::set_num_threads(n);
  set_openblas_threads(n);
}
inline void manual_seed(uint64_t seed) { torch::manual_seed(seed); }

inline Tensor randn(Sizes sizes, bool requires_grad = false) {
  return torch::randn(sizes, torch::TensorOptions().requires_grad(requires_grad));
}
inline Tensor randint(int64_t high, Sizes sizes) { return torch::randint(high, sizes, torch::kLong); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return torch::mm(a, b); }
inline Tensor cross_entropy(const Tensor& input, const Tensor& target) {
  return torch::nn::functional::cross_entropy(input, target);
}
inline std::vector<float> values(const Tensor& t) {
  Tensor c = t.detach().contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// A Sequential of Linear layers with ReLU between them: {512, 512, 512} is the chapter's `big`.
struct Network {
  torch::nn::Sequential layers;
  explicit Network(std::initializer_list<int64_t> widths) {
    const std::vector<int64_t> w(widths);
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (i > 0) layers->push_back(torch::nn::ReLU());
      layers->push_back(torch::nn::Linear(w[i], w[i + 1]));
    }
  }
  Tensor operator()(const Tensor& x) { return layers->forward(x); }
  std::vector<Tensor> parameters() { return layers->parameters(); }
};

struct Sgd {
  torch::optim::SGD sgd;
  Sgd(std::vector<Tensor> parameters, double lr) : sgd(std::move(parameters), torch::optim::SGDOptions(lr)) {}
  void zero_grad() { sgd.zero_grad(); }
  void step() { sgd.step(); }
};

}  // namespace torch_backend
