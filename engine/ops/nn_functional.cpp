// Neural-network functions (torch.nn.functional): softmax, log_softmax and layer_norm, each one op
// with PyTorch's node (SoftmaxBackward0, ...). The losses are losses.cpp's and cross_entropy.cpp's.
#include <optional>
#include <type_traits>
#include <utility>

#include <optional>

#include "api/new_tensors.h"
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
  // For a graph capture (capture/capture.h): layer_norm over the last dimension of a float32 tensor
  // as the primitive ops the compiler fuses, as Inductor decomposes native_layer_norm. The capture
  // records these ops, and autograd differentiates them one by one (mean and rstd as [rows]).
  static std::optional<LayerNormResult> decomposition(const Tensor& input, const Dims& normalized_shape,
                                                      const Tensor& weight, const Tensor& bias, double eps) {
    if (normalized_shape.size() != 1 || input.dim() < 2 || input.dtype() != kFloat32 ||
        input.size(-1) != normalized_shape[0] || (weight.defined() && weight.sizes() != normalized_shape) ||
        (bias.defined() && bias.sizes() != normalized_shape))
      return std::nullopt;
    const Tensor mean = input.mean({-1}, true);
    const Tensor centered = input - mean;
    const Tensor rstd = ((centered * centered).mean({-1}, true) + eps).pow(-0.5);
    Tensor output = centered * rstd;
    if (weight.defined()) output = output * weight;
    if (bias.defined()) output = output + bias;
    const int64_t rows = input.numel() / normalized_shape[0];
    return LayerNormResult{output, mean.view({rows}), rstd.view({rows})};
  }
  static NativeLayerNormBackward0 save(const LayerNormResult& result, const Tensor& input, const Dims& normalized_shape,
                                       const Tensor& weight, const Tensor&, double eps) {
    return {input, weight, result.mean, result.rstd, normalized_shape, eps};
  }
};

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim) { return call<Softmax>(a, dim); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return call<LogSoftmax>(a, dim); }

Tensor layer_norm(const Tensor& input, const Dims& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return call<LayerNorm>(input, normalized_shape, weight, bias, eps).output;
}

}  // namespace ember
