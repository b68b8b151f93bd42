// The derivative rules that do not fit on a line of derivatives.h, and the helpers rules share.
// Like the one-line rules, everything here is written with ember's ops, so a profile shows each
// step (run with grad mode off by the engine); loops over elements live in kernels/.
#include "derivatives.h"

#include <algorithm>

#include "api/new_tensors.h"
#include "core/grad_mode.h"
#include "record.h"

namespace ember::autograd {

Tensor unpack_output(const SavedTensor& result) {
  Tensor output = result.unpack();
  if (!output.defined() || !GradMode::is_enabled() || !running_node()) return output;
  // A new handle each time: the saved one must not hold its own node (Note [Saving an output]).
  Tensor with_history = internal::alias(output);
  set_history(with_history, running_node());
  return with_history;
}

// Under create_graph the copy is an ordinary (recorded) copy_ into the region, so the gradient can
// be differentiated again; otherwise it writes below autograd, as ATen's select_backward does.
Tensor embedded(const Tensor& g, const Dims& sizes, const std::function<Tensor(const Tensor&)>& region) {
  Tensor grad_input = zeros(sizes, g.options());
  if (GradMode::is_enabled()) region(grad_input).copy_(g);
  else internal::copy_into_new_tensor(region(grad_input), g);
  return grad_input;
}

Tensor counted_writes(Tensor grad, int writes) {
  for (int i = 0; i < writes; ++i) grad.impl()->version_counter->bump();
  return grad;
}

Tensor constant_like(const Tensor& g, Scalar value) { return scalar_tensor(value, g.options()); }

Tensor scaled(const Tensor& g, Scalar factor) {
  if (factor.to_double() == 1) return g;
  return g * factor;
}

// For reductions over `dims` without keepdim: put the reduced dims back as size 1.
Tensor unsqueeze_reduced(const Tensor& g, const Dims& dims, int64_t ndim, bool keepdim) {
  if (keepdim || ndim == 0) return g;
  std::vector<int64_t> wrapped;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) wrapped.push_back(d);
  } else {
    for (int64_t d : dims) wrapped.push_back(wrap_dim(d, ndim));
  }
  std::sort(wrapped.begin(), wrapped.end());
  Tensor result = g;
  for (int64_t d : wrapped) result = result.unsqueeze(d);
  return result;
}

// On the CPU PyTorch fills a new zero tensor where the mask holds (new_zeros, then masked_fill_ with
// g / count: one counted write), so an infinite g leaves zeros elsewhere; its CUDA branch (taken by
// every device that is not the CPU) multiplies by the mask, where 0 * inf is NaN.
Tensor evenly_distribute_backward(const Tensor& g, const Tensor& input, const Tensor& value) {
  const bool nan_value = ne(value, value).item<bool>();
  const Tensor mask = nan_value ? ne(input, input) : eq(input, value);
  if (!g.device().is_cpu()) return mask.to(g.dtype()) * (g / mask.sum());
  return counted_writes(where(mask, g / mask.sum(), constant_like(g, 0)), 1);
}

Grads maximum_backward(const Tensor& g, const Tensor& self, const Tensor& other, Needs needs, bool maximum) {
  const Tensor zero = constant_like(g, 0);
  const Tensor shared = where(eq(self, other), g / 2, g);
  const Tensor self_smaller = lt(self, other), self_larger = gt(self, other);
  // Each is PyTorch's where(...).masked_fill_(...): one counted write.
  return {needs[0] ? counted_writes(where(maximum ? self_smaller : self_larger, zero, shared), 1) : Tensor(),
          needs[1] ? counted_writes(where(maximum ? self_larger : self_smaller, zero, shared), 1) : Tensor()};
}

Tensor clamp_backward(const Tensor& g, const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  const Tensor zero = constant_like(g, 0);
  Tensor within = g;
  if (max) within = where(le(self, *max), within, zero);
  if (min) within = where(ge(self, *min), within, zero);
  return within;
}

Grads addcdiv_backward(const Tensor& g, const Tensor& tensor1, const Tensor& tensor2, Scalar value, Needs needs) {
  // value / tensor2 as ATen's Scalar / Tensor: the value in tensor2's dtype, divided by it. (An
  // integer tensor2 takes g's dtype instead: PyTorch's backward raises "result type Float can't be
  // cast to the desired output type Long" there.)
  const DType value_dtype = tensor2.is_floating_point() ? tensor2.dtype() : g.dtype();
  return {g, needs[1] ? g * (scalar_tensor(value, Options(value_dtype).device(tensor2.device())) / tensor2) : Tensor(),
          needs[2] ? -g * (tensor1 * value / (tensor2 * tensor2)) : Tensor()};
}

// Routes g[..., i, ...] to position indices[..., i, ...] along `dim` of a zero tensor (ATen's
// value_selecting_reduction_backward: at::zeros, then scatter_, which MaxBackward0 counts).
// Under create_graph: g where the position along `dim` equals the index, written with
// differentiable ops so that the gradient can be differentiated again.
Tensor scatter_along(const Tensor& g, const Tensor& indices, const Dims& sizes, int64_t dim, bool keepdim) {
  const bool unsqueeze = !keepdim && !sizes.empty();
  if (GradMode::is_enabled()) {
    if (sizes.empty()) return g.clone();
    Dims position_sizes = Dims::filled(sizes.size(), 1);
    position_sizes[dim] = sizes[dim];
    const Tensor positions = arange(sizes[dim], Options(kInt64).device(g.device())).view(position_sizes);
    const Tensor chosen = eq(positions, unsqueeze ? indices.unsqueeze(dim) : indices);
    return where(chosen, unsqueeze ? g.unsqueeze(dim) : g, constant_like(g, 0));
  }
  Tensor grad_input = zeros(sizes, g.options());
  internal::scatter_into_new_tensor(grad_input, dim, unsqueeze ? indices.unsqueeze(dim) : indices,
                                    unsqueeze ? g.unsqueeze(dim) : g);
  return grad_input;
}

Grads layer_norm_backward(const Tensor& g, const Tensor& input, const Tensor& saved_mean, const Tensor& saved_rstd,
                          const Tensor& weight, const Dims& normalized_shape, double eps) {
  const int64_t n = product(normalized_shape), rows = n == 0 ? 0 : input.numel() / n;
  const Tensor x2 = input.reshape({rows, n}), g2 = g.reshape({rows, n});
  Tensor mean = saved_mean, rstd = saved_rstd;
  if (GradMode::is_enabled() && input.requires_grad()) {
    mean = x2.mean({1});
    rstd = (((x2 - mean.unsqueeze(1)).pow(2)).mean({1}) + eps).pow(-0.5);
  }
  const Tensor x_hat = (x2 - mean.unsqueeze(1)) * rstd.unsqueeze(1);
  const Tensor g_hat = weight.defined() ? g2 * weight.reshape({1, n}) : g2;
  const Tensor dx = rstd.unsqueeze(1) * (g_hat - g_hat.mean({1}, true) - x_hat * (g_hat * x_hat).mean({1}, true));
  return {dx.reshape(input.sizes()), (g2 * x_hat).sum({0}).reshape(normalized_shape),
          g2.sum({0}).reshape(normalized_shape)};
}

bool is_column_major(const Tensor& matrix) {
  return matrix.dim() == 2 && matrix.stride(0) == 1 && matrix.stride(1) == matrix.size(0);
}
Tensor mm_mat1_backward(const Tensor& g, const Tensor& mat2, bool mat1_column_major) {
  return mat1_column_major ? mat2.mm(g.t()).t() : g.mm(mat2.t());
}
Tensor mm_mat2_backward(const Tensor& g, const Tensor& mat1, bool mat2_column_major) {
  return mat2_column_major ? g.t().mm(mat1).t() : mat1.t().mm(g);
}

Grads CatBackward0::apply(const Tensor& g, Needs) const {
  Grads grads;
  int64_t offset = 0;
  for (const Dims& sizes : tensors_sizes) {
    if (sizes.size() == 1 && sizes[0] == 0 && g.dim() != 1) {  // a skipped legacy empty input
      grads.push_back(Tensor());
      continue;
    }
    grads.push_back(g.narrow(dim, offset, sizes[dim]));
    offset += sizes[dim];
  }
  return grads;
}

Tensor var_mean_backward(const Tensor& gvar, const Tensor& gmean, const Tensor& self, const Dims& dims,
                         int64_t correction, bool keepdim) {
  int64_t count = dims.empty() ? self.numel() : 1;
  for (int64_t d : dims) count *= self.size(d);
  Tensor grad;
  if (gvar.defined()) {
    const Tensor spread = unsqueeze_reduced(gvar, dims, self.dim(), keepdim);
    grad = spread * (self - self.mean(dims, true)) * (2.0 / static_cast<double>(count - correction));
  }
  if (gmean.defined()) {
    const Tensor spread =
        unsqueeze_reduced(gmean, dims, self.dim(), keepdim).expand(self.sizes()) / static_cast<double>(count);
    grad = grad.defined() ? grad + spread : spread;
  }
  return grad;
}

// Element j of every window lands at j, j + step, j + 2 step, ...: distinct places for one j, so
// each j is one embedding (a copy, differentiable under create_graph), and the windows' overlaps
// are the sum over j. A 0-dim input was one window of `size` (0 or 1) elements.
Tensor unfold_backward(const Tensor& g, const Dims& self_sizes, int64_t dim, int64_t size, int64_t step) {
  Tensor grad_input = zeros(self_sizes, g.options());
  for (int64_t j = 0; j < size; ++j) {
    const Tensor window_element = g.select(-1, j);
    grad_input = grad_input + embedded(window_element, self_sizes, [&](const Tensor& t) {
                   if (self_sizes.empty()) return t;
                   return t.slice(dim, j, j + (window_element.size(dim) - 1) * step + 1, step);
                 });
  }
  return grad_input;
}

Tensor join_pieces(const std::vector<Tensor>& grads, const std::vector<Dims>& piece_sizes, int64_t dim, bool stacked) {
  std::vector<Tensor> pieces;
  const Tensor* any = nullptr;
  for (const Tensor& g : grads)
    if (g.defined()) any = &g;
  if (!any) return Tensor();  // no output got a gradient
  for (size_t i = 0; i < piece_sizes.size(); ++i)
    pieces.push_back(grads[i].defined() ? grads[i]
                                        : zeros(piece_sizes[i], Options(any->dtype()).device(any->device())));
  return stacked ? stack(pieces, dim) : cat(pieces, dim);
}

Grads ExpandBackward0::apply(const Tensor& g, Needs) const { return {sum_to(g, self_sizes)}; }

// `1 - y` first, named: the operands of `g * y * (1 - y)` may be evaluated in either order, and GCC
// and clang differ, which a profile, a trace or a compiled graph would show.
Grads sigmoid_backward(const Tensor& g, const Tensor& result) {
  const Tensor one_minus_result = 1.0 - result;
  return {g * result * one_minus_result};
}
Grads tanh_backward(const Tensor& g, const Tensor& result) { return {g * (1.0 - result * result)}; }
Grads softmax_backward(const Tensor& g, const Tensor& result, int64_t dim) {
  return {result * (g - (g * result).sum({dim}, true))};
}

Tensor sum_to(const Tensor& grad, const Dims& sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - sizes.size();
  Dims reduce;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (sizes[d - lead] == 1 && grad.size(d) != 1)) reduce.push_back(d);
  Tensor reduced = reduce.empty() ? grad : grad.sum(reduce, true);
  return lead > 0 ? reduced.view(sizes) : reduced;  // ATen's sum_to: the keepdim sum is contiguous
}

}  // namespace ember::autograd
