// What every derivative formula works with (derivatives.h): the gradients it returns, which of its
// inputs want one, and the helpers several formulas share, as PyTorch's FunctionsManual.h holds the
// formulas too long for derivatives.yaml.
#pragma once
#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include "api/ops.h"

namespace ember::autograd {

struct Node;
class SavedTensor;
using Grads = std::vector<Tensor>;

// Which inputs of a node want a gradient (its edges that lead somewhere).
struct Needs {
  const std::vector<bool>& wanted;
  bool operator[](size_t input) const { return input < wanted.size() && wanted[input]; }
};

// A layout in storage elements: what as_strided takes.
struct Geometry {
  Dims sizes;
  Dims strides;
  int64_t offset = 0;
};

// A node's saved output as its formula reads it. Under create_graph (grad mode on in backward) it
// gets its history back, the node being run, so that a second derivative sees that it depends on
// the inputs (d/dx of tanh's 1 - y^2 goes through y): PyTorch's SavedVariable::unpack.
Tensor unpack_output(const SavedTensor& result);

// Helpers the formulas share (formula_helpers.cpp, copy_slices.cpp).
// `grad` (a tensor the formula has just made) with `writes` counted on its version, as PyTorch's
// formula leaves it: FunctionsManual calls ATen directly, outside the guard that keeps a factory's
// own writes uncounted, so at::zeros's zero_ and a masked_fill_ or scatter_ into the new tensor each
// bump its version. A leaf's .grad that keeps the tensor shows them (max(dim)'s gradient is at
// version 2). ember's formula computes the same values without those writes and counts them here.
Tensor counted_writes(Tensor grad, int writes);
Tensor scaled(const Tensor& g, Scalar factor);  // g * factor, skipping a multiply by 1
// A formula's constant: a 0-dim tensor holding `value` in g's dtype, made on g's device (a CPU
// constant would reach a device op as a host pointer, or make its output on the CPU).
Tensor constant_like(const Tensor& g, Scalar value);
Tensor unsqueeze_reduced(const Tensor& g, const Dims& dims, int64_t ndim, bool keepdim);
// g placed in `region` (a view of a zero tensor) of `sizes`: ATen's select_backward and
// slice_backward, which write below autograd, so the result is at version 0 as in PyTorch.
Tensor embedded(const Tensor& g, const Dims& sizes, const std::function<Tensor(const Tensor&)>& region);
// max()/min() of all elements: g shared evenly among the elements equal to `value` (the NaNs, for
// a NaN maximum, as NaN == NaN is false): PyTorch's evenly_distribute_backward.
Tensor evenly_distribute_backward(const Tensor& g, const Tensor& input, const Tensor& value);
// maximum's gradients (minimum's when `maximum` is false): g to the larger (smaller) input, g / 2 to
// each where they are equal, g to both where either is NaN (1.13's derivatives.yaml: where(self ==
// other, grad / 2, grad).masked_fill_(self < other, 0) for self, and the same for other).
Grads maximum_backward(const Tensor& g, const Tensor& self, const Tensor& other, Needs needs, bool maximum);
// clamp's gradient: g where min <= self <= max (a missing bound passes everything), else 0, so a
// NaN input or bound gets 0 (ATen's clamp_backward).
// Formulas that read their saved output twice, given it unpacked once (saved-tensor hooks see one
// unpack per saved tensor, as in PyTorch): y (1 - y), 1 - y^2, y (g - sum(g y)).
Grads sigmoid_backward(const Tensor& g, const Tensor& result);
Grads tanh_backward(const Tensor& g, const Tensor& result);
Grads softmax_backward(const Tensor& g, const Tensor& result, int64_t dim);
Tensor clamp_backward(const Tensor& g, const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max);
// addcdiv's gradients: g for self, g * (value / tensor2) for tensor1, -g * (value * tensor1 /
// (tensor2 * tensor2)) for tensor2.
Grads addcdiv_backward(const Tensor& g, const Tensor& tensor1, const Tensor& tensor2, Scalar value, Needs needs);
// var_mean's gradient: 2 (x - mean) / (N - correction) times the variance's gradient, plus the
// mean's gradient spread evenly (each where defined): PyTorch's var_mean_backward.
Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, const Dims& dims,
                         int64_t correction, bool keepdim);
Tensor scatter_along(const Tensor& g, const Tensor& indices, const Dims& sizes, int64_t dim, bool keepdim);
// Under create_graph the saved mean and rstd (constants) are recomputed from the input, so that the
// second derivative sees that they depend on it.
Grads layer_norm_backward(const Tensor& g, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                          const Tensor& weight, const Dims& normalized_shape, double eps);
Tensor as_strided_backward(const Tensor& g, const Geometry& view, const Geometry& base);
// The gradients of mat1 @ mat2: g @ mat2^T and mat1^T @ g, each computed transposed when its
// input was column-major (linear's weight.t()) so that it comes out laid out like the input, as
// ATen's mm_mat1_backward and mm_mat2_backward do (a weight's gradient is then contiguous).
bool is_column_major(const Tensor& matrix);
Tensor mm_mat1_backward(const Tensor& g, const Tensor& mat2, bool mat1_column_major);
Tensor mm_mat2_backward(const Tensor& g, const Tensor& mat1, bool mat2_column_major);
// Sums `grad` over the dims that were broadcast to reach it from `sizes`.
Tensor sum_to(const Tensor& grad, const Dims& sizes);

// The node kinds of one section of derivatives (pointwise_derivatives.h, ...), which derivatives.h
// joins into BackwardFunction.
template <typename... Nodes>
struct NodeList {};

// A node's saved tensors: its saved(), or none for a node that keeps no tensor (the engine frees
// and lists them through this).
template <typename Backward>
auto saved_tensors_of(Backward& backward) {
  if constexpr (requires { backward.saved(); }) return backward.saved();
  else return std::tie();
}

}  // namespace ember::autograd
