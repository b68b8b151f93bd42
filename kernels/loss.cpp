// The loss loops (contracts in kernel_list.h), one generic body per dtype; nll_loss's element work
// is nll_loss.h's, which the CUDA kernels share.
#include "kernel_list.h"

#include <algorithm>

#include "nll_loss.h"
#include "visit_dtype.h"

namespace ember::kernels::cpu {

namespace {

[[noreturn]] void out_of_bounds(int64_t target) { throw IndexError(str_cat("Target ", target, " is out of bounds.")); }

// The elements of an input [C] (one), [N, C] or [N, C, H, W] seen as [batch, classes, inner], and its
// classes. A [C] input reads only its target's first element, as ATen's (and none of an empty target).
int64_t elements_of(const Tensor& input, const Tensor& target, int64_t inner) {
  return std::min(input.dim() <= 1 ? 1 : input.size(0) * inner, target.numel());
}
int64_t classes_of(const Tensor& input) { return input.dim() <= 1 ? input.numel() : input.size(1); }

}  // namespace

void nll_loss_forward(const Tensor& output, const Tensor& total_weight, const Tensor& input, const Tensor& target,
                      const Tensor& weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean) {
  const int64_t count = elements_of(input, target, inner), classes = classes_of(input);
  visit_compute_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const auto at = nll_loss_operands<T>(input, target, weight, classes, inner, ignore_index);
    if (per_element) {
      *total_weight.data_ptr<T>() = T(0);
      T* out = output.data_ptr<T>();
      for (int64_t e = 0; e < count; ++e)
        if (const int64_t bad = at.element(e, out); bad != kNoBadTarget) out_of_bounds(bad);
      return;
    }
    const int64_t bad = at.reduce(count, mean, output.data_ptr<T>(), total_weight.data_ptr<T>());
    if (bad != kNoBadTarget) out_of_bounds(bad);
  });
}

void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, const Tensor& weight,
                       const Tensor& total_weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean) {
  const int64_t count = elements_of(grad_input, target, inner), classes = classes_of(grad_input);
  visit_compute_dtype(grad_input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const NllLossBackwardElement<T> element{
        nll_loss_operands<T>(Tensor(), target, weight, classes, inner, ignore_index),
        grad_input.data_ptr<T>(),
        grad_output.data_ptr<T>(),
        total_weight.data_ptr<T>(),
        per_element,
        mean};
    for (int64_t e = 0; e < count; ++e) element(e);
  });
}

}  // namespace ember::kernels::cpu
