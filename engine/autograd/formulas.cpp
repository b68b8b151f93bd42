// Every derivative formula in one place. `g` is the gradient of the op's output; each case
// returns the gradients of the op's inputs, in input order, written with ember's own ops (the
// engine runs them with grad mode off). Broadcasting and dtype are fixed afterwards by the engine
// (match_input), so a formula for `a + b` is just {g, g}.
#include "formulas.h"

#include <algorithm>

#include "autograd_meta.h"
#include "internal.h"

namespace ember::autograd {

namespace {

Tensor zeros_of(const Dims& sizes, DType dtype) { return zeros(sizes, dtype); }

// For reductions over `dims` without keepdim: put the reduced dims back as size 1.
Tensor unsqueeze_reduced(Tensor g, const Dims& dims, int64_t ndim, bool keepdim) {
  if (keepdim || ndim == 0) return g;
  std::vector<int64_t> wrapped;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) wrapped.push_back(d);
  } else {
    for (int64_t d : dims) wrapped.push_back(wrap_dim(d, ndim));
  }
  std::sort(wrapped.begin(), wrapped.end());
  for (int64_t d : wrapped) g = g.unsqueeze(d);
  return g;
}

// Routes g[..., i, ...] to position indices[..., i, ...] along `dim` of a zero tensor.
Tensor scatter_along(const Tensor& g, const Tensor& indices, const Dims& sizes, int64_t dim, bool keepdim) {
  const int64_t ndim = sizes.size();
  Tensor g_k = keepdim || ndim == 0 ? g : g.unsqueeze(dim);
  Tensor i_k = keepdim || ndim == 0 ? indices : indices.unsqueeze(dim);
  const std::vector<double> values = g_k.to_vector<double>();
  const std::vector<int64_t> where = i_k.to_vector<int64_t>();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= sizes[d];
  for (int64_t d = dim + 1; d < ndim; ++d) inner *= sizes[d];
  const int64_t size_d = ndim == 0 ? 1 : sizes[dim];
  std::vector<double> out(product(sizes), 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      out[(o * size_d + where[o * inner + i]) * inner + i] = values[o * inner + i];
  return from_vector(out, sizes, g.dtype());
}

Tensor nll_loss_backward(const Node& node, const Tensor& g) {
  const Tensor target = node.saved_tensor(0);
  const Dims& sizes = node.args.sizes;
  const int64_t classes = sizes.back(), batch = sizes.size() == 2 ? sizes[0] : 1;
  const std::vector<int64_t> targets = target.to_vector<int64_t>();
  const std::vector<double> upstream = g.to_vector<double>();
  const double scale = node.args.reduction == Reduction::Mean ? 1.0 / static_cast<double>(node.args.target_count) : 1.0;
  std::vector<double> out(product(sizes), 0.0);
  for (int64_t i = 0; i < batch; ++i) {
    if (targets[i] == node.args.ignore_index) continue;
    const double gi = node.args.reduction == Reduction::None ? upstream[i] : upstream[0];
    out[i * classes + targets[i]] = -gi * scale;
  }
  return from_vector(out, sizes, g.dtype());
}

std::vector<Tensor> layer_norm_backward(const Node& node, const Tensor& g) {
  const Tensor x = node.saved_tensor(0), mean_rows = node.saved_tensor(1), rstd_rows = node.saved_tensor(2);
  const bool has_weight = node.saved.size() > 3;
  const int64_t n = product(node.args.sizes), rows = n == 0 ? 0 : x.numel() / n;
  const Tensor x2 = x.reshape({rows, n}), g2 = g.reshape({rows, n});
  const Tensor x_hat = (x2 - mean_rows.unsqueeze(1)) * rstd_rows.unsqueeze(1);
  const Tensor g_hat = has_weight ? g2 * node.saved_tensor(3).reshape({1, n}) : g2;
  const Tensor dx = rstd_rows.unsqueeze(1) *
                    (g_hat - g_hat.mean({1}, true) - x_hat * (g_hat * x_hat).mean({1}, true));
  return {dx.reshape(x.sizes()), (g2 * x_hat).sum({0}).reshape(node.args.sizes), g2.sum({0}).reshape(node.args.sizes)};
}

// A zero buffer covering both layouts, so a view's region and its base can be addressed in the
// same storage coordinates whatever the base's own strides are.
Tensor storage_buffer(const Geometry& a, const Geometry& b, DType dtype) {
  auto last = [](const Geometry& g) {
    int64_t index = g.offset;
    for (int64_t d = 0; d < g.sizes.size(); ++d) index += std::max<int64_t>(g.sizes[d] - 1, 0) * g.strides[d];
    return index;
  };
  return zeros({std::max(last(a), last(b)) + 1}, dtype);
}

Tensor strided(const Tensor& buffer, const Geometry& g) { return as_strided(buffer, g.sizes, g.strides, g.offset); }

// The gradient of a view taken by layout alone: g placed in the view's region of a zero base.
Tensor as_strided_backward(const Node& node, const Tensor& g) {
  Tensor buffer = storage_buffer(node.args.view, node.args.base, g.dtype());
  strided(buffer, node.args.view).copy_(g);
  return strided(buffer, node.args.base).clone();
}

// In-place op on a view: the base's gradient passes through unchanged except in the view's
// region, where the in-place op's own formula applies.
std::vector<Tensor> copy_slices_backward(const Node& node, const Tensor& g) {
  Tensor buffer = storage_buffer(node.args.view, node.args.base, g.dtype());
  strided(buffer, node.args.base).copy_(g);
  Tensor region = strided(buffer, node.args.view);
  const Node& inner = *node.inner;
  std::vector<Tensor> inner_grads = apply_formula(inner, {region.clone()});
  for (size_t i = 0; i < inner_grads.size(); ++i) inner_grads[i] = match_input(inner_grads[i], inner.inputs[i], inner);
  if (inner_grads[0].defined()) region.copy_(inner_grads[0]);
  else region.zero_();
  std::vector<Tensor> result{strided(buffer, node.args.base).clone()};
  result.insert(result.end(), inner_grads.begin() + 1, inner_grads.end());
  return result;
}

}  // namespace

std::vector<Tensor> apply_formula(const Node& node, const std::vector<Tensor>& grad_outputs) {
  const Tensor& g = grad_outputs.at(0);
  const NodeArgs& args = node.args;
  const DType dtype = g.defined() ? g.dtype() : kFloat32;
  auto saved = [&](size_t i) { return node.saved_tensor(i); };
  auto needs = [&](size_t i) { return i < node.next_edges.size() && node.next_edges[i].node != nullptr; };
  if (!g.defined()) return std::vector<Tensor>(node.next_edges.size());

  switch (node.op) {
    // ---- arithmetic ----
    case Op::Add: return {g, args.alpha.to_double() == 1 ? g : g * args.alpha};
    case Op::Sub: return {g, args.alpha.to_double() == 1 ? -g : g * -args.alpha.to_double()};
    case Op::Mul: return {needs(0) ? g * saved(1) : Tensor(), needs(1) ? g * saved(0) : Tensor()};
    case Op::Div: {
      const Tensor b = saved(1);
      return {needs(0) ? g / b : Tensor(), needs(1) ? -g * saved(0) / (b * b) : Tensor()};
    }
    case Op::AddScalar: case Op::SubScalar: return {g};
    case Op::MulScalar: return {g * args.alpha};
    case Op::DivScalar: return {g / args.alpha};
    case Op::RsubScalar: case Op::Neg: return {-g};

    // ---- unary math ----
    case Op::Exp: return {g * saved(0)};                       // d exp(x) = exp(x)
    case Op::Log: return {g / saved(0)};                       // d log(x) = 1/x
    case Op::Sqrt: return {g / (saved(0) * 2)};                // d sqrt(x) = 1/(2 sqrt(x))
    case Op::PowScalar: {                                      // d x^e = e x^(e-1)
      const double e = args.exponent;
      if (e == 0) return {zeros_of(g.sizes(), dtype)};
      return {g * saved(0).pow(e - 1) * e};
    }
    case Op::Relu: return {where(saved(0) > internal::scalar(0, saved(0).dtype()), g, internal::scalar(0, dtype))};
    case Op::Sigmoid: { const Tensor y = saved(0); return {g * y * (1.0 - y)}; }   // y (1 - y)
    case Op::Tanh: { const Tensor y = saved(0); return {g * (1.0 - y * y)}; }      // 1 - y^2
    case Op::Where: {
      const Tensor condition = saved(0), zero = internal::scalar(0, dtype);
      return {needs(0) ? where(condition, g, zero) : Tensor(), needs(1) ? where(condition, zero, g) : Tensor()};
    }

    // ---- reductions ----
    case Op::Sum: return {g.expand(args.sizes)};
    case Op::SumDims: return {unsqueeze_reduced(g, args.dims, args.sizes.size(), args.keepdim).expand(args.sizes)};
    case Op::Mean: return {g.expand(args.sizes) / static_cast<double>(product(args.sizes))};
    case Op::MeanDims: {
      Tensor expanded = unsqueeze_reduced(g, args.dims, args.sizes.size(), args.keepdim).expand(args.sizes);
      return {expanded / static_cast<double>(product(args.sizes) / std::max<int64_t>(g.numel(), 1))};
    }
    case Op::MaxAll: case Op::MinAll: {  // shared evenly among all elements equal to the extreme
      const Tensor mask = eq(saved(0), saved(1)).to(dtype);
      return {g * mask / mask.sum()};
    }
    case Op::MaxDim: case Op::MinDim: return {scatter_along(g, saved(0), args.sizes, args.dim, args.keepdim)};

    // ---- matrix products ----
    case Op::Mm: return {needs(0) ? g.mm(saved(1).t()) : Tensor(), needs(1) ? saved(0).t().mm(g) : Tensor()};
    case Op::Addmm: {
      const Scalar alpha = args.alpha;
      return {needs(0) ? g * args.beta : Tensor(), needs(1) ? g.mm(saved(1).t()) * alpha : Tensor(),
              needs(2) ? saved(0).t().mm(g) * alpha : Tensor()};
    }
    case Op::Bmm:
      return {needs(0) ? bmm(g, saved(1).transpose(1, 2)) : Tensor(), needs(1) ? bmm(saved(0).transpose(1, 2), g) : Tensor()};
    case Op::Dot: return {needs(0) ? g * saved(1) : Tensor(), needs(1) ? g * saved(0) : Tensor()};
    case Op::Mv:
      return {needs(0) ? g.unsqueeze(1) * saved(1).unsqueeze(0) : Tensor(), needs(1) ? matmul(saved(0).t(), g) : Tensor()};

    // ---- neural-network functions ----
    case Op::Softmax: { const Tensor y = saved(0); return {y * (g - (g * y).sum({args.dim}, true))}; }
    case Op::LogSoftmax: return {g - saved(0).exp() * g.sum({args.dim}, true)};
    case Op::LayerNorm: return layer_norm_backward(node, g);
    case Op::MseLoss: {  // d (x - t)^2 = 2 (x - t), divided by n for the mean
      const Tensor diff = saved(0) - saved(1);
      const double factor = args.reduction == Reduction::Mean ? 2.0 / static_cast<double>(diff.numel()) : 2.0;
      const Tensor grad_input = g * diff * factor;
      return {grad_input, -grad_input};
    }
    case Op::NllLoss: return {nll_loss_backward(node, g)};

    // ---- joining, copies, moves ----
    case Op::Cat: {
      std::vector<Tensor> grads;
      int64_t offset = 0;
      for (const Dims& sizes : args.input_sizes) {
        if (sizes.size() == 1 && sizes[0] == 0 && g.dim() != 1) {  // a skipped legacy empty input
          grads.push_back(Tensor());
          continue;
        }
        grads.push_back(g.narrow(args.dim, offset, sizes[args.dim]));
        offset += sizes[args.dim];
      }
      return grads;
    }
    case Op::Stack: {
      std::vector<Tensor> grads;
      for (int64_t i = 0; i < g.size(args.dim); ++i) grads.push_back(g.select(args.dim, i));
      return grads;
    }
    case Op::ToDtype: case Op::Clone: return {g};
    case Op::ToDevice: return {g.to(args.device)};
    // Overwritten values (fill_, zero_, and in-place sampling) no longer depend on the input.
    case Op::Fill: case Op::Zero: case Op::Uniform: case Op::Normal: case Op::Bernoulli: case Op::BernoulliScalar:
    case Op::Random:
      return {zeros_of(node.inputs[0].sizes, dtype)};
    case Op::Copy: return {zeros_of(node.inputs[0].sizes, dtype), g};
    case Op::CopySlices: return copy_slices_backward(node, g);

    // ---- views: map the view's gradient back onto the input's layout ----
    case Op::View: case Op::ReshapeAlias: case Op::UnsafeView: case Op::Squeeze: case Op::SqueezeDim:
    case Op::Unsqueeze:
      return {g.reshape(args.sizes)};
    case Op::Expand: return {sum_to(g, args.sizes)};
    case Op::Transpose: return {args.dims.empty() ? g : g.transpose(args.dims[0], args.dims[1])};
    case Op::T: return {g.dim() < 2 ? g : g.t()};
    case Op::Permute: {
      Dims inverse = args.dims;
      for (int64_t i = 0; i < args.dims.size(); ++i) inverse[args.dims[i]] = i;
      return {g.permute(inverse)};
    }
    case Op::Select: {
      Tensor grad_input = zeros_of(args.sizes, dtype);
      grad_input.select(args.dim, args.index).copy_(g);
      return {grad_input};
    }
    case Op::Slice: {
      Tensor grad_input = zeros_of(args.sizes, dtype);
      grad_input.slice(args.dim, args.start, args.end, args.step).copy_(g);
      return {grad_input};
    }
    case Op::AsStrided: return {as_strided_backward(node, g)};
    case Op::AccumulateGrad: break;  // handled by the engine
  }
  throw Error(str_cat("ember: no derivative formula for ", node.name()));
}

Tensor sum_to(const Tensor& grad, const Dims& sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - sizes.size();
  Dims reduce;
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (sizes[d - lead] == 1 && grad.size(d) != 1)) reduce.push_back(d);
  Tensor reduced = reduce.empty() ? grad : grad.sum(reduce, true);
  return reduced.reshape(sizes);
}

Tensor match_input(Tensor grad, const InputMeta& input, const Node& node) {
  if (!grad.defined()) return grad;
  if (grad.sizes() != input.sizes) {
    bool expandable = grad.dim() >= input.sizes.size();
    for (int64_t i = 1; expandable && i <= input.sizes.size(); ++i) {
      const int64_t want = input.sizes[input.sizes.size() - i], have = grad.size(grad.dim() - i);
      expandable = want == have || want == 1;
    }
    EMBER_CHECK(expandable, "Function ", node.name(), " returned an invalid gradient - got ", to_string(grad.sizes()),
                " but expected shape compatible with ", to_string(input.sizes));
    grad = sum_to(grad, input.sizes);
  }
  if (grad.dtype() != input.dtype) grad = grad.to(input.dtype);
  if (grad.device() != input.device) grad = grad.to(input.device);
  return grad;
}

}  // namespace ember::autograd
