// nll_loss on the GPU, its element work being the CPU kernels' (kernels/nll_loss.h): one thread per
// element for the per-element loss and for the gradient; one thread for the reduced loss, which walks
// the elements in ATen's order so that its sum has the CPU's bits. The forward pass reports the
// first target out of bounds, which the host turns into PyTorch's IndexError (PyTorch's own CUDA
// kernel asserts on the device instead, which kills the process).
#include <algorithm>

#include "core/allocator.h"
#include "device_loops.cuh"
#include "kernels/kernel_list.h"
#include "kernels/nll_loss.h"

namespace ember::kernels::cuda {

namespace {

// As kernels/loss.cpp: the elements an input [C], [N, C] or [N, C, H, W] has, and its classes.
int64_t elements_of(const Tensor& input, const Tensor& target, int64_t inner) {
  return std::min(input.dim() <= 1 ? 1 : input.size(0) * inner, target.numel());
}
int64_t classes_of(const Tensor& input) { return input.dim() <= 1 ? input.numel() : input.size(1); }

// *report receives the first target out of bounds (kNoBadTarget when none).
template <typename T>
void nll_loss_forward_as(const Tensor& output, const Tensor& total_weight, const NllLossOperands<T>& at, int64_t count,
                         bool per_element, bool mean, int64_t* report) {
  T* out = output.data_ptr<T>();
  T* total = total_weight.data_ptr<T>();
  if (per_element) {
    launch_elements(
        1, [=] __device__(int64_t) { *total = T(0); }, "nll_loss_forward");
    launch_elements(
        count,
        [=] __device__(int64_t e) {
          const int64_t bad = at.element(e, out);
          if (bad != kNoBadTarget)
            atomicCAS(reinterpret_cast<unsigned long long*>(report), static_cast<unsigned long long>(kNoBadTarget),
                      static_cast<unsigned long long>(bad));
        },
        "nll_loss_forward");
    return;
  }
  launch_elements(
      1, [=] __device__(int64_t) { *report = at.reduce(count, mean, out, total); }, "nll_loss_forward");
}

}  // namespace

void nll_loss_forward(const Tensor& output, const Tensor& total_weight, const Tensor& input, const Tensor& target,
                      const Tensor& weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean) {
  const int64_t count = elements_of(input, target, inner);
  int64_t host_report = kNoBadTarget;
  auto* report = static_cast<int64_t*>(allocate_bytes(output.device(), sizeof host_report));
  ::ember::cuda::copy_bytes(report, &host_report, sizeof host_report, ::ember::cuda::CopyKind::HostToDevice);
  visit_compute_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    nll_loss_forward_as<T>(output, total_weight,
                           nll_loss_operands<T>(input, target, weight, classes_of(input), inner, ignore_index), count,
                           per_element, mean, report);
  });
  ::ember::cuda::copy_bytes(&host_report, report, sizeof host_report, ::ember::cuda::CopyKind::DeviceToHost);
  free_bytes(output.device(), report, sizeof host_report);
  if (host_report != kNoBadTarget) throw IndexError(str_cat("Target ", host_report, " is out of bounds."));
}

void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, const Tensor& weight,
                       const Tensor& total_weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean) {
  const int64_t count = elements_of(grad_input, target, inner);
  visit_compute_dtype(grad_input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const NllLossBackwardElement<T> element{
        nll_loss_operands<T>(Tensor(), target, weight, classes_of(grad_input), inner, ignore_index),
        grad_input.data_ptr<T>(),
        grad_output.data_ptr<T>(),
        total_weight.data_ptr<T>(),
        per_element,
        mean};
    launch_elements(count, element, "nll_loss_backward");
  });
}

}  // namespace ember::kernels::cuda
