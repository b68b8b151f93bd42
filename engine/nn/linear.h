// nn::Linear: y = x W^T + b, with W of shape [out_features, in_features] as in PyTorch. Its
// forward calls `linear`, which becomes aten::addmm for 2-D input, so profiles read like PyTorch's.
#pragma once
#include "module.h"

namespace ember::nn {

class LinearImpl : public Module {
 public:
  // Parameters are initialised as PyTorch does (kaiming-uniform weight, uniform bias) from the
  // default generator, so manual_seed gives PyTorch's weights bit for bit.
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) override;
  void reset_parameters();

  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }
  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }

 private:
  int64_t in_features_;
  int64_t out_features_;
};

TORCH_MODULE(Linear);

}  // namespace ember::nn
