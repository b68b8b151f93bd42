// nll_loss on the GPU: one thread per row, the backward pass's row being the CPU kernel's
// (kernels/nll_loss_backward.h). The forward pass also counts the rows it used and reports the
// first target out of bounds, which the host turns into PyTorch's error (PyTorch's own CUDA kernel
// asserts on the device instead, which kills the process).
#include "core/allocator.h"
#include "device_loops.cuh"
#include "kernels/kernel_list.h"
#include "kernels/nll_loss_backward.h"

namespace ember::kernels::cuda {

namespace {

constexpr int64_t kNone = INT64_MIN;  // "no target out of bounds" in the forward pass's report

// report[0] counts the rows used; report[1] receives a target out of bounds.
template <typename T>
void nll_loss_forward_as(const Tensor& losses, const Tensor& log_probs, const int64_t* targets, int64_t ignore_index,
                         int64_t* report) {
  const int64_t classes = log_probs.size(-1);
  const T* in = log_probs.data_ptr<T>();
  T* out = losses.data_ptr<T>();
  launch_elements(
      losses.numel(),
      [=] __device__(int64_t i) {
        const int64_t t = targets[i];
        out[i] = T(0);
        if (t == ignore_index) return;
        if (t < 0 || t >= classes) {
          atomicCAS(reinterpret_cast<unsigned long long*>(report + 1), static_cast<unsigned long long>(kNone),
                    static_cast<unsigned long long>(t));
          return;
        }
        out[i] = -in[i * classes + t];
        atomicAdd(reinterpret_cast<unsigned long long*>(report), 1ull);
      },
      "nll_loss_forward");
}

}  // namespace

int64_t nll_loss_forward(const Tensor& losses, const Tensor& log_probs, const Tensor& target, int64_t ignore_index) {
  const int64_t* targets = target.data_ptr<int64_t>();
  int64_t host_report[2] = {0, kNone};
  auto* report = static_cast<int64_t*>(allocate_bytes(losses.device(), sizeof host_report));
  ::ember::cuda::copy_bytes(report, host_report, sizeof host_report, ::ember::cuda::CopyKind::HostToDevice);
  visit_compute_dtype(log_probs.dtype(), [&](auto tag) {
    nll_loss_forward_as<decltype(tag)>(losses, log_probs, targets, ignore_index, report);
  });
  ::ember::cuda::copy_bytes(host_report, report, sizeof host_report, ::ember::cuda::CopyKind::DeviceToHost);
  free_bytes(losses.device(), report, sizeof host_report);
  EMBER_CHECK(host_report[1] == kNone, "Target ", host_report[1], " is out of bounds.");
  return host_report[0];
}

void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, int64_t ignore_index,
                       double scale, bool per_sample) {
  run_nll_loss_backward(grad_input, grad_output, target, ignore_index, scale, per_sample,
                        [](int64_t batch, const auto& row) { launch_elements(batch, row, "nll_loss_backward"); });
}

}  // namespace ember::kernels::cuda
