// Neural-network functions (torch.nn.functional): softmax, log_softmax, layer_norm and the losses.
// Each computes its forward with a kernel or with other ops (without recording them) and then
// records one node, so the graph shows PyTorch's node (SoftmaxBackward0, NllLossBackward0, ...).
#include "autograd/record.h"
#include "internal.h"
#include "kernels/layer_norm.h"
#include "kernels/softmax.h"
#include "ops.h"

namespace ember {

using autograd::Op;

namespace {

// Softmax over `dim`: move dim last, run the row kernel, move it back.
Tensor softmax_impl(const Tensor& a, int64_t dim, bool log) {
  const char* kernel_name = log ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl";
  EMBER_CHECK(a.is_floating_point(), "\"", kernel_name, "\" not implemented for '", scalar_type_name(a.dtype()), "'");
  internal::check_cpu(a, log ? "log_softmax" : "softmax");
  const int64_t d = wrap_dim(dim, a.dim());
  const DType compute = internal::compute_dtype(a.dtype());
  const int64_t last = std::max<int64_t>(a.dim() - 1, 0);
  Tensor moved = internal::contiguous(internal::converted(internal::alias(a).transpose(d, last), compute));
  Tensor out = internal::new_empty(moved.sizes(), compute);
  const int64_t n = a.dim() == 0 ? 1 : a.size(d);
  kernels::softmax_rows(out, moved, n == 0 ? 0 : a.numel() / n, n, log);
  out = internal::converted(internal::contiguous(out.transpose(d, last)), a.dtype());
  if (autograd::needs_grad({&a})) {
    auto node = autograd::make_node(log ? Op::LogSoftmax : Op::Softmax, {&a});
    node->args.dim = d;
    node->saved.emplace_back(out, true);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor reduce_loss(const Tensor& elementwise, Reduction reduction) {
  if (reduction == Reduction::Mean) return internal::alias(mean(elementwise));
  if (reduction == Reduction::Sum) return internal::alias(sum(elementwise));
  return elementwise;
}

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, false); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, true); }

Tensor layer_norm(const Tensor& input, const Dims& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const int64_t norm_dims = normalized_shape.size();
  EMBER_CHECK(norm_dims >= 1, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                              "element, but got normalized_shape = ", to_string(normalized_shape));
  EMBER_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              to_string(weight.sizes()), " and normalized_shape = ", to_string(normalized_shape));
  EMBER_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ", to_string(bias.sizes()),
              " and normalized_shape = ", to_string(normalized_shape));
  bool matches = input.dim() >= norm_dims;
  for (int64_t i = 0; matches && i < norm_dims; ++i)
    matches = input.size(input.dim() - norm_dims + i) == normalized_shape[i];
  if (!matches) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    throw Error(str_cat("Given normalized_shape=", to_string(normalized_shape), ", expected input with shape ",
                        expected, "], but got input of size", to_string(input.sizes())));
  }
  EMBER_CHECK(input.is_floating_point(), "\"LayerNormKernelImpl\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  internal::check_cpu(input, "layer_norm");
  const DType compute = internal::compute_dtype(input.dtype());
  const int64_t n = product(normalized_shape), rows = n == 0 ? 0 : input.numel() / n;
  Tensor x = internal::contiguous(internal::converted(input, compute));
  Tensor y = internal::new_empty(input.sizes(), compute);
  Tensor mean_rows = internal::new_empty({rows}, compute), rstd_rows = internal::new_empty({rows}, compute);
  auto prepared = [&](const Tensor& t) { return t.defined() ? internal::contiguous(internal::converted(t, compute)) : t; };
  kernels::layer_norm_rows(y, mean_rows, rstd_rows, x, prepared(weight), prepared(bias), rows, n, eps);
  y = internal::converted(y, input.dtype());
  if (autograd::needs_grad({&input, &weight, &bias})) {
    auto node = autograd::make_node(Op::LayerNorm, {&input, &weight, &bias});
    node->args.sizes = normalized_shape;
    node->saved.emplace_back(input, false);
    node->saved.emplace_back(mean_rows, false);
    node->saved.emplace_back(rstd_rows, false);
    if (weight.defined()) node->saved.emplace_back(weight, false);
    autograd::set_history(y, node);
  }
  return y;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  Tensor diff = sub(internal::alias(input), internal::alias(target));
  Tensor out = reduce_loss(mul(diff, diff), reduction);
  if (autograd::needs_grad({&input, &target})) {
    auto node = autograd::make_node(Op::MseLoss, {&input, &target});
    node->args.reduction = reduction;
    node->saved.emplace_back(input, false);
    node->saved.emplace_back(target, false);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  EMBER_CHECK(log_probs.dim() == 1 || log_probs.dim() == 2, "input tensor should be 1D or 2D");
  EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  const bool batched = log_probs.dim() == 2;
  const int64_t batch = batched ? log_probs.size(0) : 1, classes = log_probs.size(-1);
  EMBER_CHECK(!batched || target.dim() == 1, "0D or 1D target tensor expected, multi-target not supported");
  EMBER_CHECK(target.numel() == batch, "Expected input batch_size (", batch, ") to match target batch_size (",
              target.numel(), ").");
  EMBER_CHECK(target.dtype() == kInt64, "expected scalar type Long but found ", scalar_type_name(target.dtype()));
  EMBER_CHECK(log_probs.is_floating_point(), "\"nll_loss_out_frame\" not implemented for '",
              scalar_type_name(log_probs.dtype()), "'");
  internal::check_cpu(log_probs, "nll_loss");
  const std::vector<int64_t> targets = target.to_vector<int64_t>();
  const std::vector<double> values = log_probs.to_vector<double>();
  std::vector<double> losses(batch, 0.0);
  int64_t counted = 0;
  for (int64_t i = 0; i < batch; ++i) {
    if (targets[i] == ignore_index) continue;
    EMBER_CHECK(targets[i] >= 0 && targets[i] < classes, "Target ", targets[i], " is out of bounds.");
    losses[i] = -values[i * classes + targets[i]];
    ++counted;
  }
  Tensor per_sample = internal::converted(from_vector(losses, batched ? Dims{batch} : Dims{}), log_probs.dtype());
  Tensor out;
  if (reduction == Reduction::None) out = per_sample;
  else if (reduction == Reduction::Sum) out = internal::alias(sum(per_sample));
  else out = internal::alias(div(sum(per_sample), Scalar(static_cast<double>(counted))));
  if (autograd::needs_grad({&log_probs})) {
    auto node = autograd::make_node(Op::NllLoss, {&log_probs});
    node->args.reduction = reduction;
    node->args.ignore_index = ignore_index;
    node->args.sizes = log_probs.sizes();
    node->args.target_count = counted;
    node->saved.emplace_back(target, false);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  EMBER_CHECK(input.dim() >= 1, "cross_entropy: input must have at least one dimension");
  return nll_loss(log_softmax(input, input.dim() == 1 ? 0 : 1), target, reduction, ignore_index);
}

}  // namespace ember
