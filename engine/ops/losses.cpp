// The losses of torch.nn.functional: mse_loss, and the losses of class-index targets, built as
// PyTorch 1.13 builds them, so that a profile, a grad_fn and an error read as PyTorch's:
//
//   cross_entropy  aten::cross_entropy_loss: log_softmax over the class dim, then nll_loss_nd
//   nll_loss_nd    aten::nll_loss_nd (torch.nn.functional.nll_loss): checks the batch sizes, then
//                  nll_loss for [C] and [N, C], nll_loss2d for [N, C, H, W], and any other
//                  [N, C, d1, ...] viewed as [N, C, 1, d1*...] for nll_loss2d (and viewed back)
//   nll_loss       aten::nll_loss > aten::nll_loss_forward (NllLossBackward0)
//   nll_loss2d     aten::nll_loss2d > aten::nll_loss2d_forward (NllLoss2DBackward0)
//
// The two forward ops share one kernel, which sees [N, C] as [N, C, 1] and [N, C, H, W] as
// [N, C, H*W]: a per-class `weight` rescales each target's term, and the mean divides by the total
// weight of the targets not ignored, which the node keeps for the gradient (PyTorch's total_weight).
#include <span>

#include "api/new_tensors.h"
#include "core/grad_mode.h"
#include "core/warning.h"
#include "device_checks.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

Tensor reduce_loss(const Tensor& elementwise, Reduction reduction) {
  if (reduction == Reduction::Mean) return elementwise.mean();
  if (reduction == Reduction::Sum) return elementwise.sum();
  return elementwise;
}

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

// ---- the class-index losses ----

// nll_loss's two shapes, for the texts and the kernel's view of the input.
enum class NllShape { Rows, Images };  // [C] or [N, C]; [N, C, H, W]

// A forward op's output and the total weight its mean divides by (0-dim), which backward reuses.
struct NllLossResult {
  Tensor output, total_weight;
};

// What the two forward ops share once each has checked its shapes, in ATen's order: the input's
// dtype (its kernel's name in the text), the weight's dtype, the target's, then the kernel, which
// refuses a target out of range. `per_element`: the output has the target's shape.
NllLossResult nll_loss_forward_kernel(const Tensor& self, const Tensor& target, const Tensor& weight, bool per_element,
                                      Reduction reduction, int64_t ignore_index, NllShape shape) {
  const char* frame = shape == NllShape::Rows ? "nll_loss_out_frame" : "nll_loss2d_forward_out_frame";
  // ATen's CPU kernels take float, double and bfloat16; its CUDA kernels half too.
  const bool computes = self.is_floating_point() && (self.dtype() != kFloat16 || !self.device().is_cpu());
  EMBER_CHECK(computes, "\"", frame, "\" not implemented for '", scalar_type_name(self.dtype()), "'");
  EMBER_CHECK(!weight.defined() || weight.dtype() == self.dtype(), "expected scalar type ",
              scalar_type_name(self.dtype()), " but found ", scalar_type_name(weight.dtype()));
  EMBER_CHECK(target.dtype() == kInt64, "expected scalar type Long but found ", scalar_type_name(target.dtype()));
  // ATen's kernels make the weight contiguous, and for a reduction the input and the target too
  // (each recorded as aten::contiguous > aten::clone where it copies); per element they read in place.
  const Tensor weights = weight.defined() ? weight.contiguous() : weight;
  const Tensor input = per_element ? internal::contiguous(self) : self.contiguous();
  const Tensor targets = per_element ? internal::contiguous(target) : target.contiguous();
  const DType compute = internal::compute_dtype(self.dtype());
  auto prepared = [&](const Tensor& t) { return t.defined() ? internal::converted(t, compute) : t; };
  const int64_t inner = shape == NllShape::Rows ? 1 : self.size(2) * self.size(3);
  Tensor output = internal::new_empty(per_element ? target.sizes() : Dims{}, compute, self.device());
  Tensor total_weight = internal::new_empty({}, compute, self.device());
  kernels::on(self.device())
      .nll_loss_forward(output, total_weight, prepared(input), targets, prepared(weights), inner, ignore_index,
                        per_element, reduction == Reduction::Mean);
  return {internal::converted(output, self.dtype()), total_weight};
}

// "weight tensor should be defined either for all 3 classes or no classes ...": nll_loss's text;
// nll_loss2d's is shorter and counts the weight's elements only.
void check_weight(const Tensor& weight, int64_t classes, NllShape shape) {
  if (!weight.defined()) return;
  if (shape == NllShape::Images) {
    EMBER_CHECK(weight.numel() == classes, "weight tensor should be defined either for all or no classes");
    return;
  }
  EMBER_CHECK(weight.dim() == 1 && weight.numel() == classes, "weight tensor should be defined either for all ",
              classes, " classes or no classes but got weight tensor of shape: ", to_string(weight.sizes()));
}

struct NllLossForward : FunctionalOp {
  static constexpr const char* name = "aten::nll_loss_forward";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static NllLossResult compute(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                               int64_t ignore_index) {
    internal::check_same_device({{"self", self}, {"target", target}, {"weight", weight}}, "wrapper_nll_loss_forward");
    EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "input tensor should be 1D or 2D");
    EMBER_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
    // target.size(0) of a 0-dim target is ATen's IndexError, as there.
    EMBER_CHECK(no_batch_dim || self.size(0) == target.size(0), "size mismatch (got input: ", to_string(self.sizes()),
                ", target: ", to_string(target.sizes()), ")");
    check_weight(weight, self.size(-1), NllShape::Rows);
    const bool per_element = reduction == Reduction::None && self.dim() == 2;
    return nll_loss_forward_kernel(self, target, weight, per_element, reduction, ignore_index, NllShape::Rows);
  }
  static NllLossBackward0 save(const NllLossResult& result, const Tensor& self, const Tensor& target,
                               const Tensor& weight, Reduction reduction, int64_t ignore_index) {
    return {target, weight, result.total_weight, self.sizes(), reduction, ignore_index};
  }
};

struct NllLoss2dForward : FunctionalOp {
  static constexpr const char* name = "aten::nll_loss2d_forward";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static NllLossResult compute(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                               int64_t ignore_index) {
    internal::check_same_device({{"self", self}, {"target", target}, {"weight", weight}},
                                "wrapper__nll_loss2d_forward");
    EMBER_CHECK(target.dim() == 3,
                "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
    EMBER_CHECK(self.dim() == 4,
                "only batches of spatial inputs supported (4D tensors), but got input of dimension: ", self.dim());
    check_weight(weight, self.size(1), NllShape::Images);
    EMBER_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2),
                "size mismatch (got input: ", to_string(self.sizes()), " , target: ", to_string(target.sizes()));
    return nll_loss_forward_kernel(self, target, weight, reduction == Reduction::None, reduction, ignore_index,
                                   NllShape::Images);
  }
  static NllLoss2DBackward0 save(const NllLossResult& result, const Tensor& self, const Tensor& target,
                                 const Tensor& weight, Reduction reduction, int64_t ignore_index) {
    return {target, weight, result.total_weight, self.sizes(), reduction, ignore_index};
  }
};

// PyTorch's autograd refuses a weight that requires grad (its formula has no gradient for it) while
// grad mode is on, before the kernel sees any argument.
void check_weight_not_differentiable(const Tensor& weight, const char* function) {
  EMBER_CHECK(!GradMode::is_enabled() || !weight.defined() || !weight.requires_grad(), "The function '", function,
              "' is not differentiable with respect to argument 'weight'. This input cannot have requires_grad True.");
}

struct NllLoss : CompositeOp {  // aten::nll_loss > aten::nll_loss_forward
  static constexpr const char* name = "aten::nll_loss";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                        int64_t ignore_index) {
    check_weight_not_differentiable(weight, "nll_loss_forward");
    return call<NllLossForward>(self, target, weight, reduction, ignore_index).output;
  }
};

struct NllLoss2d : CompositeOp {  // aten::nll_loss2d > aten::nll_loss2d_forward
  static constexpr const char* name = "aten::nll_loss2d";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                        int64_t ignore_index) {
    check_weight_not_differentiable(weight, "nll_loss2d_forward");
    return call<NllLoss2dForward>(self, target, weight, reduction, ignore_index).output;
  }
};

// The gradients (the nodes' formulas): into zeros of the input's sizes, -w g at each counted target.
template <NllShape shape>
struct NllLossBackwardOp : FunctionalOp {
  using DoubleBackward =
      std::conditional_t<shape == NllShape::Rows, NllLossBackwardBackward0, NllLoss2DBackwardBackward0>;
  static constexpr const char* name = shape == NllShape::Rows ? "aten::nll_loss_backward" : "aten::nll_loss2d_backward";
  static Tensor compute(const Tensor& grad_output, const Dims& self_sizes, const Tensor& target, const Tensor& weight,
                        Reduction reduction, int64_t ignore_index, const Tensor& total_weight) {
    const DType compute = internal::compute_dtype(grad_output.dtype());
    auto prepared = [&](const Tensor& t) {
      return t.defined() ? internal::contiguous(internal::converted(t, compute)) : t;
    };
    Tensor grad_input = zeros(self_sizes, Options(compute).device(grad_output.device()));
    const bool per_element = reduction == Reduction::None && (shape == NllShape::Images || self_sizes.size() == 2);
    const int64_t inner = shape == NllShape::Rows ? 1 : self_sizes[2] * self_sizes[3];
    kernels::on(grad_output.device())
        .nll_loss_backward(grad_input, prepared(grad_output), internal::contiguous(target), prepared(weight),
                           prepared(total_weight), inner, ignore_index, per_element, reduction == Reduction::Mean);
    return internal::converted(grad_input, grad_output.dtype());
  }
  // Recorded only under create_graph, when the loss's gradient is itself differentiated.
  static DoubleBackward save(const Tensor&, const Tensor&, const Dims&, const Tensor& target, const Tensor& weight,
                             Reduction reduction, int64_t ignore_index, const Tensor&) {
    return {target, weight, reduction, ignore_index};
  }
};
using NllLossBackward = NllLossBackwardOp<NllShape::Rows>;
using NllLoss2dBackward = NllLossBackwardOp<NllShape::Images>;

struct NllLossNd : CompositeOp {  // torch.nn.functional.nll_loss
  static constexpr const char* name = "aten::nll_loss_nd";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                        int64_t ignore_index) {
    if (self.dim() < 1) throw ValueError(str_cat("Expected 1 or more dimensions (got ", self.dim(), ")"));
    const int64_t target_batch = target.dim() == 0 ? 0 : target.size(0);  // ATen reads a 0-dim target's as 0
    if (self.dim() != 1 && self.size(0) != target_batch)
      throw ValueError(
          str_cat("Expected input batch_size (", self.size(0), ") to match target batch_size (", target_batch, ")."));
    if (self.dim() <= 2) return nll_loss(self, target, weight, reduction, ignore_index);
    if (self.dim() == 4) return nll_loss2d(self, target, weight, reduction, ignore_index);
    // [N, C, d1, ...] (3 or 5 and more dims): as [N, C, 1, d1*...] against targets [N, 1, d1*...].
    const int64_t n = self.size(0), c = self.size(1);
    const Dims spatial(std::span<const int64_t>(self.sizes().begin() + 2, self.sizes().end()));
    Dims out_size{n};
    for (int64_t s : spatial) out_size.push_back(s);
    const Dims target_spatial =
        target.dim() == 0 ? Dims{} : Dims(std::span<const int64_t>(target.sizes().begin() + 1, target.sizes().end()));
    EMBER_CHECK(target_spatial == spatial, "Expected target size ", to_string(out_size), ", got ",
                to_string(target.sizes()));
    Tensor input = self.contiguous(), targets = target.contiguous();
    input = input.numel() > 0 ? input.view({n, c, 1, -1}) : input.view({n, c, 0, 0});
    targets = targets.numel() > 0 ? targets.view({n, 1, -1}) : targets.view({n, 0, 0});
    const Tensor loss = nll_loss2d(input, targets, weight, reduction, ignore_index);
    return reduction == Reduction::None ? loss.view(out_size) : loss;
  }
};

}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (input.sizes() != target.sizes())  // torch.nn.functional.mse_loss's own check, before broadcasting
    warn_once(str_cat("Using a target size (torch.Size(", to_string(target.sizes()),
                      ")) that is different to the input size (torch.Size(", to_string(input.sizes()),
                      ")). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size."));
  return call<MseLoss>(input, target, reduction);
}

Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                int64_t ignore_index) {
  return call<NllLoss>(self, target, weight, reduction, ignore_index);
}
Tensor nll_loss2d(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                  int64_t ignore_index) {
  return call<NllLoss2d>(self, target, weight, reduction, ignore_index);
}
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                   int64_t ignore_index) {
  return call<NllLossNd>(self, target, weight, reduction, ignore_index);
}
Tensor nll_loss_backward(const Tensor& grad_output, const Dims& self_sizes, const Tensor& target, const Tensor& weight,
                         Reduction reduction, int64_t ignore_index, const Tensor& total_weight) {
  return call<NllLossBackward>(grad_output, self_sizes, target, weight, reduction, ignore_index, total_weight);
}
Tensor nll_loss2d_backward(const Tensor& grad_output, const Dims& self_sizes, const Tensor& target,
                           const Tensor& weight, Reduction reduction, int64_t ignore_index,
                           const Tensor& total_weight) {
  return call<NllLoss2dBackward>(grad_output, self_sizes, target, weight, reduction, ignore_index, total_weight);
}

}  // namespace ember
