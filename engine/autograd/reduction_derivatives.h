// The backward nodes of the reductions (sum, mean, var_mean, max, min): each spreads the reduced
// gradient back over the input's shape. One section of autograd's formulas (derivatives.h).
#pragma once
#include "api/ops.h"
#include "formula_helpers.h"
#include "saved_tensor.h"

namespace ember::autograd {

// ---- reductions ----
struct SumBackward0 {  // sum of all elements
  static constexpr const char* name = "SumBackward0";
  Dims self_sizes;
  Grads apply(const Tensor& g, Needs) const { return {g.expand(self_sizes)}; }
};
struct SumBackward1 {  // sum over dims
  static constexpr const char* name = "SumBackward1";
  Dims self_sizes, dims;
  bool keepdim = false;
  Grads apply(const Tensor& g, Needs) const {
    return {unsqueeze_reduced(g, dims, self_sizes.size(), keepdim).expand(self_sizes)};
  }
};
struct MeanBackward0 {
  static constexpr const char* name = "MeanBackward0";
  Dims self_sizes;
  Grads apply(const Tensor& g, Needs) const {
    return {g.expand(self_sizes) / static_cast<double>(product(self_sizes))};
  }
};
struct VarMeanBackward0 {  // var_mean: grads[0] for the variance, grads[1] for the mean
  static constexpr const char* name = "VarMeanBackward0";
  static constexpr bool takes_all_outputs = true;
  EMBER_SAVED_TENSORS(self);
  Dims dims;  // empty: every dim
  int64_t correction = 1;
  bool keepdim = false;
  Grads apply(const std::vector<Tensor>& g, Needs) const {
    return {var_mean_backward(g[0], g[1], self.unpack(), dims, correction, keepdim)};
  }
};
struct MeanBackward1 {
  static constexpr const char* name = "MeanBackward1";
  Dims self_sizes, dims;
  bool keepdim = false;
  // Saved for its numel as in PyTorch 1.13, so reuse after backward and in-place changes are refused as there.
  EMBER_SAVED_TENSORS(self);
  Grads apply(const Tensor& g, Needs) const {
    const int64_t count = self.unpack().numel() / std::max<int64_t>(g.numel(), 1);
    return {unsqueeze_reduced(g, dims, self_sizes.size(), keepdim).expand(self_sizes) / static_cast<double>(count)};
  }
};
// max() / min() of all elements: the gradient is shared evenly among the elements equal to it.
struct MaxBackward1 {
  static constexpr const char* name = "MaxBackward1";
  EMBER_SAVED_TENSORS(self, result);
  Grads apply(const Tensor& g, Needs) const {
    const Tensor input = self.unpack(), output = unpack_output(result);  // in the order saved (PyTorch's)
    return {evenly_distribute_backward(g, input, output)};
  }
};
struct MinBackward1 : MaxBackward1 {
  static constexpr const char* name = "MinBackward1";
};
// max(dim) / min(dim): the gradient goes to the index that was chosen.
struct MaxBackward0 {
  static constexpr const char* name = "MaxBackward0";
  Dims self_sizes;
  int64_t dim = 0;
  bool keepdim = false;
  EMBER_SAVED_TENSORS(indices);
  Grads apply(const Tensor& g, Needs) const {  // PyTorch's at::zeros and scatter_: two writes
    return {counted_writes(scatter_along(g, indices.unpack(), self_sizes, dim, keepdim), 2)};
  }
};
struct MinBackward0 : MaxBackward0 {
  static constexpr const char* name = "MinBackward0";
};

// This section's nodes, for BackwardFunction (derivatives.h).
using ReductionNodes = NodeList<SumBackward0, SumBackward1, MeanBackward0, VarMeanBackward0, MeanBackward1,
                                MaxBackward1, MinBackward1, MaxBackward0, MinBackward0>;

}  // namespace ember::autograd
