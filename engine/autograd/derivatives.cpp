// The derivative rules that do not fit on a line of derivatives.h, and the helpers rules share.
// Like the one-line rules, everything here is written with ember's own ops (run with grad mode
// off by the engine); loops over elements live in kernels/.
#include "derivatives.h"

#include <algorithm>

#include "autograd_meta.h"
#include "core/memory_layout.h"
#include "kernels/backend.h"
#include "node.h"
#include "ops/new_tensors.h"
#include "ops/type_promotion.h"

namespace ember::autograd {

Tensor embedded(const Tensor& g, const Dims& sizes, const std::function<Tensor(const Tensor&)>& region) {
  Tensor grad_input = zeros(sizes, Options(g.dtype()).device(g.device()));
  const Tensor target = region(grad_input);
  kernels::on(g.device()).copy(target, g);
  return grad_input;
}

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

// Routes g[..., i, ...] to position indices[..., i, ...] along `dim` of a zero tensor.
Tensor scatter_along(const Tensor& g, const Tensor& indices, const Dims& sizes, int64_t dim, bool keepdim) {
  const int64_t ndim = sizes.size();
  const Tensor values = internal::contiguous(g), chosen = internal::contiguous(indices);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= sizes[d];
  for (int64_t d = dim + 1; d < ndim; ++d) inner *= sizes[d];
  (void)keepdim;  // values and indices hold outer * inner elements either way
  Tensor out = zeros(sizes, Options(g.dtype()).device(g.device()));
  kernels::on(out.device()).scatter_rows(out, values, chosen, outer, ndim == 0 ? 1 : sizes[dim], inner);
  return out;
}

Grads layer_norm_backward(const Tensor& g, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                          const Tensor& weight, const Dims& normalized_shape) {
  const int64_t n = product(normalized_shape), rows = n == 0 ? 0 : input.numel() / n;
  const Tensor x2 = input.reshape({rows, n}), g2 = g.reshape({rows, n});
  const Tensor x_hat = (x2 - mean.unsqueeze(1)) * rstd.unsqueeze(1);
  const Tensor g_hat = weight.defined() ? g2 * weight.reshape({1, n}) : g2;
  const Tensor dx = rstd.unsqueeze(1) * (g_hat - g_hat.mean({1}, true) - x_hat * (g_hat * x_hat).mean({1}, true));
  return {dx.reshape(input.sizes()), (g2 * x_hat).sum({0}).reshape(normalized_shape),
          g2.sum({0}).reshape(normalized_shape)};
}

Tensor nll_loss_backward(const Tensor& g, const Tensor& target, const Dims& self_sizes, Reduction reduction,
                         int64_t ignore_index, int64_t total_weight) {
  const DType compute = internal::compute_dtype(g.dtype());
  Tensor grad_input = zeros(self_sizes, Options(compute).device(g.device()));
  const double scale = reduction == Reduction::Mean ? 1.0 / static_cast<double>(total_weight) : 1.0;
  kernels::on(g.device())
      .nll_loss_backward(grad_input, internal::contiguous(internal::converted(g, compute)),
                         internal::contiguous(target), ignore_index, scale, reduction == Reduction::None);
  return internal::converted(grad_input, g.dtype());
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

// A zero buffer covering both layouts, so a view's region and its base can be addressed in the
// same storage coordinates whatever the base's own strides are.
namespace {

Tensor storage_buffer(const Geometry& a, const Geometry& b, const Tensor& like) {
  auto last = [](const Geometry& g) {
    int64_t index = g.offset;
    for (int64_t d = 0; d < g.sizes.size(); ++d) index += std::max<int64_t>(g.sizes[d] - 1, 0) * g.strides[d];
    return index;
  };
  return zeros({std::max(last(a), last(b)) + 1}, Options(like.dtype()).device(like.device()));
}

Tensor strided(const Tensor& buffer, const Geometry& g) { return as_strided(buffer, g.sizes, g.strides, g.offset); }

}  // namespace

// The gradient of a view taken by layout alone: g placed in the view's region of a zero base.
Tensor as_strided_backward(const Tensor& g, const Geometry& view, const Geometry& base) {
  Tensor buffer = storage_buffer(view, base, g);
  strided(buffer, view).copy_(g);
  return strided(buffer, base).clone();
}

Grads CopySlices::apply(const Tensor& g, Needs) const {
  Tensor buffer = storage_buffer(view, base, g);
  strided(buffer, base).copy_(g);
  Tensor region = strided(buffer, view);
  Grads inner_grads = fn->apply(region.clone());
  for (size_t i = 0; i < inner_grads.size() && i < fn->inputs.size(); ++i)
    inner_grads[i] = match_input(inner_grads[i], fn->inputs[i], *fn);
  if (inner_grads[0].defined()) region.copy_(inner_grads[0]);
  else region.zero_();
  Grads result{strided(buffer, base).clone()};
  result.insert(result.end(), inner_grads.begin() + 1, inner_grads.end());
  return result;
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

Grads ExpandBackward0::apply(const Tensor& g, Needs) const { return {sum_to(g, self_sizes)}; }

namespace {
// PyTorch's "gradient layout contract": a leaf's .grad is laid out like the leaf when the leaf is
// dense (a transposed weight gets a transposed gradient), else row-major.
Dims contract_strides(const Tensor& leaf) {
  const Layout layout{leaf.sizes(), leaf.strides()};
  return is_non_overlapping_and_dense(layout) ? leaf.strides() : contiguous_strides(leaf.sizes());
}
bool obeys_layout_contract(const Tensor& grad, const Dims& strides) {
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (grad.size(d) != 1 && grad.stride(d) != strides[d]) return false;
    if (grad.size(d) == 1 && grad.stride(d) == 0) return false;
  }
  return true;
}
// Whether nothing but `t` itself refers to its bytes. A view also holds its base (autograd_meta's
// view_base, as PyTorch's _base), which shares the storage: the view is the sole owner when that
// base is held by nothing else.
bool sole_owner(const Tensor& t) {
  if (t.impl_ptr().use_count() != 1) return false;
  const AutogradMeta* meta = t.impl()->autograd_meta.get();
  if (meta && meta->is_view) return meta->view_base.impl_ptr().use_count() == 1 && t.impl()->storage.use_count() == 2;
  return t.impl()->storage.use_count() == 1;
}
}  // namespace

Grads AccumulateGrad::apply(const Tensor& new_grad, Needs) const {
  Tensor leaf(variable);
  std::lock_guard<std::mutex> lock(leaf.impl()->autograd_meta->mutex);
  Tensor& grad = leaf.mutable_grad();
  if (!grad.defined()) {
    // Keep the incoming gradient only when nothing else refers to it and it has the contract's
    // layout (PyTorch steals it in that case, as new_grad.detach()); a formula may hand one tensor
    // to several inputs, e.g. add's {g, g}. Otherwise copy it into the contract's layout.
    const Dims strides = contract_strides(leaf);
    if (sole_owner(new_grad) && obeys_layout_contract(new_grad, strides)) {
      grad = new_grad.detach();
    } else if (!new_grad.device().is_cpu()) {
      grad = new_grad.clone(MemoryFormat::Contiguous);  // no strided CUDA copy kernel yet
    } else {
      grad = internal::new_empty_strided(new_grad.sizes(), strides, new_grad.dtype(), new_grad.device());
      kernels::on(grad.device()).copy(grad, new_grad);
      grad.impl()->version_counter->bump();  // PyTorch's clone_obey_contract writes with copy_, which counts
    }
  } else {
    grad.add_(new_grad);
  }
  return {};
}

namespace {
template <size_t... I>
std::vector<std::string> names_of(std::index_sequence<I...>) {
  return {std::variant_alternative_t<I, BackwardFunction>::name...};
}
}  // namespace

std::vector<std::string> all_node_names() {
  return names_of(std::make_index_sequence<std::variant_size_v<BackwardFunction>>());
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
