// nn::LayerNorm: normalises the last dims to zero mean and unit variance, then applies a learned
// scale (weight, ones) and shift (bias, zeros).
#pragma once
#include "module.h"

namespace ember::nn {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(const Dims& normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  // LayerNorm({4}): a brace list is the shape itself (one number converts to Dims too, so without
  // this the list could also make a LayerNorm to copy, and the call would be ambiguous).
  explicit LayerNorm(std::initializer_list<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(Dims(normalized_shape), eps, elementwise_affine) {}
  Tensor forward(const Tensor& input) override;
  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }
  const Dims& normalized_shape() const { return normalized_shape_; }
  double eps() const { return eps_; }

 private:
  Dims normalized_shape_;
  double eps_;
};

}  // namespace ember::nn
