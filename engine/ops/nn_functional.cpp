// Neural-network functions (torch.nn.functional): softmax, log_softmax, layer_norm and the losses.
// Each is one op with PyTorch's node (SoftmaxBackward0, NllLossBackward0, ...); cross_entropy is
// composite (log_softmax then nll_loss), as in PyTorch.
#include <type_traits>
#include <utility>

#include "api/new_tensors.h"
#include "core/warning.h"
#include "device_checks.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

// Softmax over `dim`: lay the input out with dim last (dims d and last swapped in memory), run the
// row kernel, lay the result out as the input's. The result is always a fresh tensor (never a view
// of the kernel's buffer), as PyTorch's is. The layouts are the kernel's own copies, which a
// profile does not show: ATen's kernel reads any dim in place, recording no transpose.
Tensor softmax_over(const Tensor& a, int64_t dim, bool log) {
  const int64_t d = wrap_dim(dim, a.dim());
  const int64_t last = std::max<int64_t>(a.dim() - 1, 0);
  if (a.numel() == 0) return internal::new_empty(a.sizes(), a.dtype(), a.device());  // any dtype, as in PyTorch
  // PyTorch names the kernel it dispatched to: the last-dim one, or the general one (both ops).
  const char* kernel_name = d != last ? "softmax_kernel_impl"
                            : log     ? "log_softmax_lastdim_kernel_impl"
                                      : "softmax_lastdim_kernel_impl";
  EMBER_CHECK(a.is_floating_point(), "\"", kernel_name, "\" not implemented for '", scalar_type_name(a.dtype()), "'");
  const DType compute = internal::compute_dtype(a.dtype());
  Dims swapped = a.sizes();
  if (d != last) std::swap(swapped[d], swapped[last]);
  Dims rows_last = contiguous_strides(swapped);  // a's dims laid out as the swapped tensor's, contiguous
  if (d != last) std::swap(rows_last[d], rows_last[last]);
  const Tensor moved = internal::with_layout(a, compute, rows_last);
  Tensor out = internal::new_empty_strided(a.sizes(), rows_last, compute, a.device());
  const int64_t n = a.dim() == 0 ? 1 : a.size(d);
  kernels::on(a.device()).softmax_rows(out, moved, a.numel() / n, n, log);
  return internal::with_layout(out, a.dtype(), contiguous_strides(a.sizes()));
}

Tensor reduce_loss(const Tensor& elementwise, Reduction reduction) {
  if (reduction == Reduction::Mean) return elementwise.mean();
  if (reduction == Reduction::Sum) return elementwise.sum();
  return elementwise;
}

// softmax and log_softmax: one op each, alike but for the kernel's `log` and the node; both
// nodes save the wrapped dim and the result.
template <bool log>
struct SoftmaxOp : FunctionalOp {
  using Backward = std::conditional_t<log, LogSoftmaxBackward0, SoftmaxBackward0>;
  static constexpr const char* name = log ? "aten::log_softmax" : "aten::softmax";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;  // not on PyTorch's CPU list
  static Tensor compute(const Tensor& a, int64_t dim) { return softmax_over(a, dim, log); }
  static Backward save(const Tensor& result, const Tensor& a, int64_t dim) {
    return {wrap_dim(dim, a.dim()), SavedTensor::output(result)};
  }
};
using Softmax = SoftmaxOp<false>;
using LogSoftmax = SoftmaxOp<true>;

// layer_norm's output and the per-row statistics its backward reuses (PyTorch's native_layer_norm).
struct LayerNormResult {
  Tensor output, mean, rstd;
};

struct LayerNorm : FunctionalOp {
  static constexpr const char* name = "aten::layer_norm";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;  // not on PyTorch's CPU list
  static LayerNormResult compute(const Tensor& input, const Dims& normalized_shape, const Tensor& weight,
                                 const Tensor& bias, double eps) {
    const int64_t norm_dims = normalized_shape.size();
    EMBER_CHECK(norm_dims >= 1,
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                "one element, but got normalized_shape = ",
                to_string(normalized_shape));
    EMBER_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
                "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
                to_string(weight.sizes()), " and normalized_shape = ", to_string(normalized_shape));
    EMBER_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
                "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
                to_string(bias.sizes()), " and normalized_shape = ", to_string(normalized_shape));
    bool matches = input.dim() >= norm_dims;
    for (int64_t i = 0; matches && i < norm_dims; ++i)
      matches = input.size(input.dim() - norm_dims + i) == normalized_shape[i];
    if (!matches) {
      std::string expected = "[*";
      for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
      throw Error(str_cat("Given normalized_shape=", to_string(normalized_shape), ", expected input with shape ",
                          expected, "], but got input of size", to_string(input.sizes())));
    }
    internal::check_same_device({{"input", input}, {"weight", weight}, {"bias", bias}}, "wrapper__native_layer_norm");
    EMBER_CHECK(input.is_floating_point(), "\"LayerNormKernelImpl\" not implemented for '",
                scalar_type_name(input.dtype()), "'");
    const DType compute = internal::compute_dtype(input.dtype());
    const int64_t n = product(normalized_shape), rows = n == 0 ? 0 : input.numel() / n;
    Tensor x = internal::contiguous(internal::converted(input, compute));
    LayerNormResult result{internal::new_empty(input.sizes(), compute, input.device()),
                           internal::new_empty({rows}, compute, input.device()),
                           internal::new_empty({rows}, compute, input.device())};
    auto prepared = [&](const Tensor& t) {
      return t.defined() ? internal::contiguous(internal::converted(t, compute)) : t;
    };
    kernels::on(input.device())
        .layer_norm_rows(result.output, result.mean, result.rstd, x, prepared(weight), prepared(bias), rows, n, eps);
    result.output = internal::converted(result.output, input.dtype());
    return result;
  }
  static NativeLayerNormBackward0 save(const LayerNormResult& result, const Tensor& input, const Dims& normalized_shape,
                                       const Tensor& weight, const Tensor&, double eps) {
    return {input, weight, result.mean, result.rstd, normalized_shape, eps};
  }
};

struct MseLoss : FunctionalOp {
  static constexpr const char* name = "aten::mse_loss";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& input, const Tensor& target, Reduction reduction) {
    const Tensor diff = input - target;
    return reduce_loss(diff * diff, reduction);
  }
  static MseLossBackward0 save(const Tensor&, const Tensor& input, const Tensor& target, Reduction reduction) {
    return {input, target, reduction};
  }
  static int kernel_writes(const Tensor&, const Tensor&, Reduction reduction) {  // its mean's or sum's (record.h)
    return reduction == Reduction::None ? 0 : 1;
  }
};

// nll_loss's output and how many targets counted (the mean's divisor, which backward reuses).
struct NllLossResult {
  Tensor output;
  int64_t total_weight = 0;
};

struct NllLoss : FunctionalOp {
  static constexpr const char* name = "aten::nll_loss";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static NllLossResult compute(const Tensor& log_probs, const Tensor& target, Reduction reduction,
                               int64_t ignore_index) {
    EMBER_CHECK(log_probs.dim() == 1 || log_probs.dim() == 2, "input tensor should be 1D or 2D");
    EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    const bool batched = log_probs.dim() == 2;
    const int64_t batch = batched ? log_probs.size(0) : 1;
    EMBER_CHECK(!batched || target.dim() == 1, "0D or 1D target tensor expected, multi-target not supported");
    EMBER_CHECK(target.numel() == batch, "Expected input batch_size (", batch, ") to match target batch_size (",
                target.numel(), ").");
    internal::check_same_device({{"self", log_probs}, {"target", target}}, "wrapper_nll_loss_forward");
    EMBER_CHECK(target.dtype() == kInt64, "expected scalar type Long but found ", scalar_type_name(target.dtype()));
    EMBER_CHECK(log_probs.is_floating_point(), "\"nll_loss_out_frame\" not implemented for '",
                scalar_type_name(log_probs.dtype()), "'");
    const DType compute = internal::compute_dtype(log_probs.dtype());
    Tensor losses = internal::new_empty(batched ? Dims{batch} : Dims{}, compute, log_probs.device());
    const int64_t counted = kernels::on(log_probs.device())
                                .nll_loss_forward(losses, internal::contiguous(internal::converted(log_probs, compute)),
                                                  internal::contiguous(target), ignore_index);
    const Tensor per_sample = internal::converted(losses, log_probs.dtype());
    if (reduction == Reduction::None) return {per_sample, counted};
    if (reduction == Reduction::Sum) return {per_sample.sum(), counted};
    return {per_sample.sum() / Scalar(static_cast<double>(counted)), counted};
  }
  static NllLossBackward0 save(const NllLossResult& result, const Tensor& log_probs, const Tensor& target,
                               Reduction reduction, int64_t ignore_index) {
    return {target, log_probs.sizes(), reduction, ignore_index, result.total_weight};
  }
};

// NllLossBackward0's formula: -g (scaled for the mean) at each counted target's log-probability.
struct NllLossBackward : FunctionalOp {
  static constexpr const char* name = "aten::nll_loss_backward";
  static Tensor compute(const Tensor& grad_output, const Tensor& target, const Dims& self_sizes, Reduction reduction,
                        int64_t ignore_index, int64_t total_weight) {
    const DType compute = internal::compute_dtype(grad_output.dtype());
    Tensor grad_input = zeros(self_sizes, Options(compute).device(grad_output.device()));
    const double scale = reduction == Reduction::Mean ? 1.0 / static_cast<double>(total_weight) : 1.0;
    kernels::on(grad_output.device())
        .nll_loss_backward(grad_input, internal::contiguous(internal::converted(grad_output, compute)),
                           internal::contiguous(target), ignore_index, scale, reduction == Reduction::None);
    return internal::converted(grad_input, grad_output.dtype());
  }
  // Recorded only under create_graph, when nll_loss's gradient is itself differentiated.
  static NllLossBackwardBackward0 save(const Tensor&, const Tensor&, const Tensor& target, const Dims&,
                                       Reduction reduction, int64_t ignore_index, int64_t) {
    return {target, reduction, ignore_index};
  }
};

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim) { return call<Softmax>(a, dim); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return call<LogSoftmax>(a, dim); }

Tensor layer_norm(const Tensor& input, const Dims& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return call<LayerNorm>(input, normalized_shape, weight, bias, eps).output;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (input.sizes() != target.sizes())  // torch.nn.functional.mse_loss's own check, before broadcasting
    warn_once(str_cat("Using a target size (torch.Size(", to_string(target.sizes()),
                      ")) that is different to the input size (torch.Size(", to_string(input.sizes()),
                      ")). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size."));
  return call<MseLoss>(input, target, reduction);
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  return call<NllLoss>(log_probs, target, reduction, ignore_index).output;
}
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& target, const Dims& self_sizes, Reduction reduction,
                         int64_t ignore_index, int64_t total_weight) {
  return call<NllLossBackward>(grad_output, target, self_sizes, reduction, ignore_index, total_weight);
}

namespace {
struct CrossEntropy : CompositeOp {  // log_softmax over the class dim, then nll_loss
  static constexpr const char* name = "aten::cross_entropy_loss";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
    if (input.dim() == 0) {
      // PyTorch reads a target of the input's shape as class probabilities (which ember does not
      // implement), and otherwise takes log_softmax over dim 1, out of range for a 0-dim input.
      EMBER_CHECK(target.dim() != 0 || target.is_floating_point(),
                  "Expected floating point type for target with class probabilities, got ",
                  scalar_type_name(target.dtype()));
      EMBER_CHECK(target.dim() != 0, "Dimension specified as 1 but tensor has no dimensions");
    }
    return nll_loss(log_softmax(input, input.dim() == 1 ? 0 : 1), target, reduction, ignore_index);
  }
};
}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction, int64_t ignore_index) {
  return call<CrossEntropy>(input, target, reduction, ignore_index);
}

}  // namespace ember
