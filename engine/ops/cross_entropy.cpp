// torch.nn.functional.cross_entropy (aten::cross_entropy_loss), a composite as in PyTorch 1.13
// (LossNLL.cpp), which picks one of three paths by the target:
//   - class indices: nll_loss_nd(log_softmax(input, class dim), target, weight, ...) (losses.cpp);
//   - class indices with label_smoothing > 0: that loss times (1 - label_smoothing), plus
//     label_smoothing / C times the loss against a uniform target, -sum over the classes of w_c x_c;
//   - class probabilities (a floating target of the input's shape): -sum(w_c p_c x_c) over the classes.
// Only the first path's profile is PyTorch's event for event: ATen writes the other two with masks
// and gathers ember lacks (index_put_, masked_select, gather), so ember forms the same sums with
// where() and nll_loss itself, and their events and inner nodes differ (the values and the
// gradients do not).
#include <limits>

#include "dispatch.h"

namespace ember {

namespace {

// The class dim of an input [C] or [N, C, ...].
int64_t class_dim_of(const Tensor& input) { return input.dim() == 1 ? 0 : 1; }

// weight [C] viewed to broadcast along an input's class dim.
Tensor weight_along_classes(const Tensor& weight, const Tensor& input) {
  Dims shape = Dims::filled(input.dim(), 1);
  shape[class_dim_of(input)] = weight.size(0);
  return weight.view(shape);
}

Tensor reduced(const Tensor& losses, Reduction reduction) {
  return reduction == Reduction::None ? losses : losses.sum();
}

// Class indices with label smoothing (ATen's cross_entropy_loss_label_smoothing).
Tensor label_smoothed(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                      int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = class_dim_of(self);
  const Tensor input = log_softmax(self, class_dim);
  const Tensor nll = nll_loss_nd(input, target, weight, reduction, ignore_index);
  const int64_t classes = input.size(class_dim);
  Tensor smooth =
      weight.defined() ? -(input * weight_along_classes(weight, input)).sum({class_dim}) : -input.sum({class_dim});
  const Tensor counted = ne(target, Scalar(ignore_index));
  smooth = where(counted, smooth, zeros_like(smooth));  // ATen: smooth_loss.index_put_({ignore_mask}, 0.0)
  Tensor ret = reduced(smooth, reduction);
  if (reduction == Reduction::Mean) {
    // Divided by the targets' total weight, as nll_loss's mean is: nll_loss of a constant -1 sums
    // exactly the counted targets' weights (ATen gathers them); without a weight, their count.
    ret = weight.defined()
              ? ret / nll_loss_nd(full_like(input.detach(), -1.0), target, weight, Reduction::Sum, ignore_index)
              : ret / counted.sum();
  }
  return (1 - label_smoothing) * nll + ret * (label_smoothing / static_cast<double>(classes));
}

// Class probabilities (ATen's cross_entropy_loss_prob_target).
Tensor with_probabilities(const Tensor& self, const Tensor& target, const Tensor& weight, Reduction reduction,
                          double label_smoothing) {
  const int64_t class_dim = class_dim_of(self);
  const int64_t classes = self.size(class_dim);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == classes),
              "cross_entropy: weight tensor should be defined either for all ", classes,
              " classes or no classes but got weight tensor of shape: ", to_string(weight.sizes()));
  const Tensor input = log_softmax(self, class_dim);
  Tensor probabilities = target;
  if (label_smoothing > 0.0) {
    EMBER_CHECK(label_smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
    probabilities = target * (1 - label_smoothing) + label_smoothing / static_cast<double>(classes);
  }
  Tensor product = input * probabilities;
  if (weight.defined()) product = product * weight_along_classes(weight, input);
  if (reduction == Reduction::None) return -product.sum({class_dim});
  Tensor loss = -product.sum();
  if (reduction == Reduction::Sum) return loss;
  if (input.numel() == 0) return loss.fill_(std::numeric_limits<double>::quiet_NaN());
  return loss / (input.numel() / classes);
}

struct CrossEntropy : CompositeOp {
  static constexpr const char* name = "aten::cross_entropy_loss";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;
  static Tensor compute(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                        int64_t ignore_index, double label_smoothing) {
    if (input.sizes() == target.sizes()) {  // PyTorch reads a target of the input's shape as probabilities
      EMBER_CHECK(target.is_floating_point(), "Expected floating point type for target with class probabilities, got ",
                  scalar_type_name(target.dtype()));
      EMBER_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
      return with_probabilities(input, target, weight, reduction, label_smoothing);
    }
    if (label_smoothing > 0.0) {
      EMBER_CHECK(label_smoothing <= 1.0, "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
      return label_smoothed(input, target, weight, reduction, ignore_index, label_smoothing);
    }
    // A 0-dim input has no dim 1: log_softmax raises PyTorch's IndexError.
    return nll_loss_nd(log_softmax(input, input.dim() == 1 ? 0 : 1), target, weight, reduction, ignore_index);
  }
};

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction,
                     int64_t ignore_index, double label_smoothing) {
  return call<CrossEntropy>(input, target, weight, reduction, ignore_index, label_smoothing);
}

}  // namespace ember
