// nn::LayerNorm: normalises the last dims to zero mean and unit variance, then applies a learned
// scale (weight, ones) and shift (bias, zeros).
#pragma once
#include "module.h"

namespace ember::nn {

class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(const Dims& normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  // LayerNorm({4}): a brace list is the shape itself (one number converts to Dims too, so without
  // this the list could also make a LayerNorm to copy, and the call would be ambiguous).
  explicit LayerNormImpl(std::initializer_list<int64_t> normalized_shape, double eps = 1e-5,
                         bool elementwise_affine = true)
      : LayerNormImpl(Dims(normalized_shape), eps, elementwise_affine) {}
  Tensor forward(const Tensor& input) override;
  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }
  const Dims& normalized_shape() const { return normalized_shape_; }
  double eps() const { return eps_; }

 private:
  Dims normalized_shape_;
  double eps_;
};

// TORCH_MODULE's holder, with LayerNorm({4}) too: a brace list cannot pass through its template.
class LayerNorm : public ModuleHolder<LayerNormImpl> {
 public:
  using ModuleHolder<LayerNormImpl>::ModuleHolder;
  explicit LayerNorm(std::initializer_list<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : ModuleHolder(std::make_shared<LayerNormImpl>(Dims(normalized_shape), eps, elementwise_affine)) {}
};

}  // namespace ember::nn
