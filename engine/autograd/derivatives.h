// Every backward node and its derivative formula: all of autograd's math in one place, as PyTorch
// keeps it in derivatives.yaml. Each node is named like PyTorch's generated node (AddmmBackward0)
// and holds, by name, what its formula reads: saved tensors (with their versions, saved_tensor.h)
// and plain arguments; `saved()` lists the tensors, for the engine to free after backward.
// In `apply`, `g` is the gradient of the op's output and `needs[i]` whether input i wants one; it
// returns one gradient per input (undefined: none). The engine runs it with grad mode off and then
// fixes broadcasting and dtype (match_input), so the rule for `a + b` is just {g, g}.
// Adding a node: its struct, and its name in BackwardFunction at the bottom. Formulas too long for
// a line are in formula_helpers.cpp.
#pragma once
#include <variant>

#include "accumulate_grad.h"
#include "copy_slices.h"
#include "custom_function.h"              // a user's autograd Function as a node
#include "double_backward_derivatives.h"  // the nodes of ops formulas call
#include "formula_helpers.h"
#include "movement_derivatives.h"  // joining, copies, moves and fills
#include "ops/ops.h"
#include "saved_tensor.h"
#include "view_derivatives.h"  // the view ops' nodes

namespace ember::autograd {

// ---- arithmetic ----
struct AddBackward0 {  // self + alpha * other
  static constexpr const char* name = "AddBackward0";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs needs) const { return {g, needs[1] ? scaled(g, alpha) : Tensor()}; }
};
struct SubBackward0 {  // self - alpha * other
  static constexpr const char* name = "SubBackward0";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs needs) const { return {g, needs[1] ? scaled(-g, alpha) : Tensor()}; }
};
struct RsubBackward1 {  // other - alpha * self, other a number
  static constexpr const char* name = "RsubBackward1";
  Scalar alpha = 1;
  Grads apply(const Tensor& g, Needs) const { return {scaled(-g, alpha)}; }
};
// C++'s `tensor op number` (libtorch's Scalar overloads): the number is no input and nothing is saved.
// Python passes the number as a 0-dim "wrapped number" tensor instead, and records *Backward0.
struct AddBackward1 {  // self + number
  static constexpr const char* name = "AddBackward1";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct SubBackward1 {  // self - number
  static constexpr const char* name = "SubBackward1";
  Grads apply(const Tensor& g, Needs) const { return {g}; }
};
struct MulBackward1 {  // self * other
  static constexpr const char* name = "MulBackward1";
  Scalar other;
  Grads apply(const Tensor& g, Needs) const { return {g * other}; }
};
struct DivBackward1 {  // self / other
  static constexpr const char* name = "DivBackward1";
  Scalar other;
  Grads apply(const Tensor& g, Needs) const { return {g / other}; }
};
struct MulBackward0 {  // self * other; `other` is a 0-dim tensor when it was a number
  static constexpr const char* name = "MulBackward0";
  SavedTensor self, other;
  auto saved() { return std::tie(self, other); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved, as PyTorch unpacks
    return {needs[0] ? g * b : Tensor(), needs[1] ? g * a : Tensor()};
  }
};
struct DivBackward0 {  // self / other
  static constexpr const char* name = "DivBackward0";
  SavedTensor self, other;
  auto saved() { return std::tie(self, other); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved, as PyTorch unpacks
    return {needs[0] ? g / b : Tensor(), needs[1] ? -g * a / (b * b) : Tensor()};
  }
};
struct Atan2Backward0 {  // d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
  static constexpr const char* name = "Atan2Backward0";
  SavedTensor self, other;
  auto saved() { return std::tie(self, other); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor y = self.unpack(), x = other.unpack();  // in the order saved, as PyTorch unpacks
    const Tensor reciprocal = pow(y * y + x * x, -1);    // PyTorch's atan2_backward
    return {needs[0] ? g * x * reciprocal : Tensor(), needs[1] ? g * -y * reciprocal : Tensor()};
  }
};
struct AddcmulBackward0 {  // self + value * tensor1 * tensor2; each tensor saved only for the other's gradient
  static constexpr const char* name = "AddcmulBackward0";
  SavedTensor tensor1, tensor2;
  Scalar value = 1;
  auto saved() { return std::tie(tensor1, tensor2); }
  Grads apply(const Tensor& g, Needs needs) const {
    return {g, needs[1] ? g * (tensor2.unpack() * value) : Tensor(),
            needs[2] ? g * (tensor1.unpack() * value) : Tensor()};
  }
};
struct AddcdivBackward0 {  // self + value * tensor1 / tensor2
  static constexpr const char* name = "AddcdivBackward0";
  SavedTensor tensor1, tensor2;
  Scalar value = 1;
  auto saved() { return std::tie(tensor1, tensor2); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor t2 = tensor2.unpack(), t1 = tensor1.unpack();  // in the order saved (PyTorch's)
    return addcdiv_backward(g, t1, t2, value, needs);
  }
};
struct NegBackward0 {
  static constexpr const char* name = "NegBackward0";
  Grads apply(const Tensor& g, Needs) const { return {-g}; }
};

// ---- unary math ----
struct ExpBackward0 {  // d exp(x) = exp(x)
  static constexpr const char* name = "ExpBackward0";
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return {g * unpack_output(result)}; }
};
struct LogBackward0 {  // d log(x) = 1 / x
  static constexpr const char* name = "LogBackward0";
  SavedTensor self;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const { return {g / self.unpack()}; }
};
struct SqrtBackward0 {  // d sqrt(x) = 1 / (2 sqrt(x))
  static constexpr const char* name = "SqrtBackward0";
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return {g / (unpack_output(result) * 2)}; }
};
struct PowBackward0 {  // d x^e = e x^(e-1)
  static constexpr const char* name = "PowBackward0";
  SavedTensor self;
  double exponent = 0;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const {
    const Tensor x = self.unpack();  // even when exponent 0 does not need it: a freed graph is detected
    if (exponent == 0) return {zeros(x.sizes(), x.options())};  // contiguous, as ATen's
    return {g * x.pow(exponent - 1) * exponent};
  }
};
struct AbsBackward0 {  // sign(x), so 0 at 0 (PyTorch's sgn)
  static constexpr const char* name = "AbsBackward0";
  SavedTensor self;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const { return {g * sign(self.unpack())}; }
};
struct SignBackward0 {  // constant almost everywhere
  static constexpr const char* name = "SignBackward0";
  Grads apply(const Tensor& g, Needs) const { return {zeros_like(g)}; }
};
struct ReluBackward0 {  // 1 where the output is positive
  static constexpr const char* name = "ReluBackward0";
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return {threshold_backward(g, unpack_output(result), 0)}; }
};
struct SigmoidBackward0 {  // y (1 - y)
  static constexpr const char* name = "SigmoidBackward0";
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return sigmoid_backward(g, unpack_output(result)); }
};
struct TanhBackward0 {  // 1 - y^2
  static constexpr const char* name = "TanhBackward0";
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return tanh_backward(g, unpack_output(result)); }
};
struct WhereBackward0 {  // inputs: condition, self, other
  static constexpr const char* name = "WhereBackward0";
  SavedTensor condition;
  auto saved() { return std::tie(condition); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor c = condition.unpack(), zero = constant_like(g, 0);
    return {Tensor(), needs[1] ? where(c, g, zero) : Tensor(), needs[2] ? where(c, zero, g) : Tensor()};
  }
};

// ---- bounds: the gradient goes where the value came from ----
struct MaximumBackward0 {  // to the larger input; half to each where they tie; all to both at a NaN
  static constexpr const char* name = "MaximumBackward0";
  SavedTensor self, other;
  auto saved() { return std::tie(self, other); }
  Grads apply(const Tensor& g, Needs needs) const { return to_extreme(g, needs, /*maximum=*/true); }
  Grads to_extreme(const Tensor& g, Needs needs, bool maximum) const {
    const Tensor a = self.unpack(), b = other.unpack();  // in the order saved (PyTorch's)
    return maximum_backward(g, a, b, needs, maximum);
  }
};
struct MinimumBackward0 : MaximumBackward0 {  // to the smaller input
  static constexpr const char* name = "MinimumBackward0";
  Grads apply(const Tensor& g, Needs needs) const { return to_extreme(g, needs, /*maximum=*/false); }
};
// clamp: g where the input lies within the bounds (bounds included), 0 outside them and at NaN.
struct ClampBackward1 {  // clamp(self, min, max), either bound optional
  static constexpr const char* name = "ClampBackward1";
  SavedTensor self;
  std::optional<Scalar> min, max;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), min, max)}; }
};
struct ClampMinBackward0 {
  static constexpr const char* name = "ClampMinBackward0";
  SavedTensor self;
  Scalar min = 0;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), min, std::nullopt)}; }
};
struct ClampMaxBackward0 {
  static constexpr const char* name = "ClampMaxBackward0";
  SavedTensor self;
  Scalar max = 0;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const { return {clamp_backward(g, self.unpack(), std::nullopt, max)}; }
};

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
  SavedTensor self;
  Dims dims;  // empty: every dim
  int64_t correction = 1;
  bool keepdim = false;
  auto saved() { return std::tie(self); }
  Grads apply(const std::vector<Tensor>& g, Needs) const {
    return {var_mean_backward(g[0], g[1], self.unpack(), dims, correction, keepdim)};
  }
};
struct MeanBackward1 {
  static constexpr const char* name = "MeanBackward1";
  Dims self_sizes, dims;
  bool keepdim = false;
  // Saved for its numel as in PyTorch 1.13, so reuse after backward and in-place changes are refused as there.
  SavedTensor self;
  auto saved() { return std::tie(self); }
  Grads apply(const Tensor& g, Needs) const {
    const int64_t count = self.unpack().numel() / std::max<int64_t>(g.numel(), 1);
    return {unsqueeze_reduced(g, dims, self_sizes.size(), keepdim).expand(self_sizes) / static_cast<double>(count)};
  }
};
// max() / min() of all elements: the gradient is shared evenly among the elements equal to it.
struct MaxBackward1 {
  static constexpr const char* name = "MaxBackward1";
  SavedTensor self, result;
  auto saved() { return std::tie(self, result); }
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
  SavedTensor indices;
  auto saved() { return std::tie(indices); }
  Grads apply(const Tensor& g, Needs) const {  // PyTorch's at::zeros and scatter_: two writes
    return {counted_writes(scatter_along(g, indices.unpack(), self_sizes, dim, keepdim), 2)};
  }
};
struct MinBackward0 : MaxBackward0 {
  static constexpr const char* name = "MinBackward0";
};

// ---- matrix products: d(a b) = da b + a db ----
struct MmBackward0 {
  static constexpr const char* name = "MmBackward0";
  SavedTensor self, mat2;
  bool self_column_major = false, mat2_column_major = false;  // see mm_mat1_backward
  auto saved() { return std::tie(self, mat2); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = mat2.unpack();  // in the order saved (PyTorch's)
    return {needs[0] ? mm_mat1_backward(g, b, self_column_major) : Tensor(),
            needs[1] ? mm_mat2_backward(g, a, mat2_column_major) : Tensor()};
  }
};
struct AddmmBackward0 {  // beta * self + alpha * mat1 @ mat2
  static constexpr const char* name = "AddmmBackward0";
  SavedTensor mat1, mat2;
  Scalar alpha = 1, beta = 1;
  bool mat1_column_major = false, mat2_column_major = false;  // see mm_mat1_backward
  auto saved() { return std::tie(mat1, mat2); }
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? scaled(g, beta) : Tensor(),
            needs[1] ? scaled(mm_mat1_backward(g, mat2.unpack(), mat1_column_major), alpha) : Tensor(),
            needs[2] ? scaled(mm_mat2_backward(g, mat1.unpack(), mat2_column_major), alpha) : Tensor()};
  }
};
struct BmmBackward0 {
  static constexpr const char* name = "BmmBackward0";
  SavedTensor self, mat2;
  auto saved() { return std::tie(self, mat2); }
  Grads apply(const Tensor& g, Needs needs) const {
    const Tensor a = self.unpack(), b = mat2.unpack();  // in the order saved (PyTorch's)
    return {needs[0] ? bmm(g, b.transpose(1, 2)) : Tensor(), needs[1] ? bmm(a.transpose(1, 2), g) : Tensor()};
  }
};
struct DotBackward0 {
  static constexpr const char* name = "DotBackward0";
  SavedTensor self, tensor;
  auto saved() { return std::tie(self, tensor); }
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? g * tensor.unpack() : Tensor(), needs[1] ? g * self.unpack() : Tensor()};
  }
};
struct MvBackward0 {
  static constexpr const char* name = "MvBackward0";
  SavedTensor self, vec;
  auto saved() { return std::tie(self, vec); }
  Grads apply(const Tensor& g, Needs needs) const {
    return {needs[0] ? g.unsqueeze(1) * vec.unpack().unsqueeze(0) : Tensor(),
            needs[1] ? matmul(self.unpack().t(), g) : Tensor()};
  }
};

// ---- neural-network functions ----
struct SoftmaxBackward0 {  // y (g - sum(g y))
  static constexpr const char* name = "SoftmaxBackward0";
  int64_t dim = 0;
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return softmax_backward(g, unpack_output(result), dim); }
};
struct LogSoftmaxBackward0 {  // g - exp(y) sum(g)
  static constexpr const char* name = "LogSoftmaxBackward0";
  int64_t dim = 0;
  SavedTensor result;
  auto saved() { return std::tie(result); }
  Grads apply(const Tensor& g, Needs) const { return {g - unpack_output(result).exp() * g.sum({dim}, true)}; }
};
struct NativeLayerNormBackward0 {  // inputs: input, weight, bias
  static constexpr const char* name = "NativeLayerNormBackward0";
  SavedTensor input, weight, mean, rstd;  // weight undefined when the call had none
  Dims normalized_shape;
  double eps = 1e-5;  // for create_graph, which recomputes mean and rstd from the input (formula_helpers.cpp)
  auto saved() { return std::tie(input, weight, mean, rstd); }
  Grads apply(const Tensor& g, Needs) const {
    const Tensor x = input.unpack(), w = weight.unpack(), mu = mean.unpack(), r = rstd.unpack();  // saved order
    return layer_norm_backward(g, x, mu, r, w, normalized_shape, eps);
  }
};
struct MseLossBackward0 {  // d (x - t)^2 = 2 (x - t), divided by n for the mean
  static constexpr const char* name = "MseLossBackward0";
  SavedTensor self, target;
  Reduction reduction = Reduction::Mean;
  auto saved() { return std::tie(self, target); }
  Grads apply(const Tensor& g, Needs) const {
    const Tensor input = self.unpack(), expected = target.unpack();  // in the order saved, as PyTorch unpacks
    const Tensor diff = input - expected;
    const double factor = reduction == Reduction::Mean ? 2.0 / static_cast<double>(diff.numel()) : 2.0;
    const Tensor grad_input = g * diff * factor;
    return {grad_input, -grad_input};
  }
};
struct NllLossBackward0 {  // -g at each target's log-probability; inputs: self, target
  static constexpr const char* name = "NllLossBackward0";
  SavedTensor target;
  Dims self_sizes;
  Reduction reduction = Reduction::Mean;
  int64_t ignore_index = -100;
  int64_t total_weight = 0;  // targets not ignored: the mean's divisor
  auto saved() { return std::tie(target); }
  Grads apply(const Tensor& g, Needs) const {
    return {ember::nll_loss_backward(g, target.unpack(), self_sizes, reduction, ignore_index, total_weight)};
  }
};

// The one list of node kinds. A test checks that each one is produced by a fixture or gradcheck case.
using BackwardFunction = std::variant<
    AccumulateGrad, AddBackward0, SubBackward0, RsubBackward1, AddBackward1, SubBackward1, MulBackward1, DivBackward1,
    Atan2Backward0, MulBackward0, DivBackward0, AddcmulBackward0, AddcdivBackward0, NegBackward0, ExpBackward0,
    LogBackward0, SqrtBackward0, PowBackward0, ReluBackward0, SigmoidBackward0, TanhBackward0, SignBackward0,
    AbsBackward0, WhereBackward0, MaximumBackward0, MinimumBackward0, ClampBackward1, ClampMinBackward0,
    ClampMaxBackward0, SumBackward0, SumBackward1, MeanBackward0, MeanBackward1, MaxBackward1, MinBackward1,
    MaxBackward0, MinBackward0, MmBackward0, AddmmBackward0, BmmBackward0, DotBackward0, MvBackward0, SoftmaxBackward0,
    LogSoftmaxBackward0, NativeLayerNormBackward0, MseLossBackward0, NllLossBackward0, CatBackward0, StackBackward0,
    ToCopyBackward0, CloneBackward0, ViewBackward0, ReshapeAliasBackward0, UnsafeViewBackward0, SqueezeBackward0,
    SqueezeBackward1, SqueezeBackward3, UnsqueezeBackward0, ExpandBackward0, TransposeBackward0, TBackward0,
    PermuteBackward0, SelectBackward0, SliceBackward0, AsStridedBackward0, TransposeBackward1, TBackward1,
    SqueezeBackward2, UnsqueezeBackward1, AsStridedBackward1, UnbindBackward0, SplitBackward0, SplitWithSizesBackward0,
    VarMeanBackward0, UnsafeSplitBackward0, UnsafeSplitWithSizesBackward0, DiagonalBackward0, FillBackward2,
    ZeroBackward0, UniformBackward0, NormalBackward0, BernoulliBackward0, BernoulliBackward2, RandomBackward0,
    CopyBackwards, CopySlices, ThresholdBackwardBackward0, NllLossBackwardBackward0, CustomFunction>;

}  // namespace ember::autograd
