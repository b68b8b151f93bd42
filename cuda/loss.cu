// nll_loss on the GPU: one thread per row. The forward pass also counts the rows it used and
// reports the first target out of bounds, which the host turns into PyTorch's error (PyTorch's
// own CUDA kernel asserts on the device instead, which kills the process).
#include "core/allocator.h"
#include "device_loops.cuh"
#include "kernels/kernel_list.h"

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

template <typename T>
void nll_loss_backward_as(const Tensor& grad_input, const Tensor& grad_output, const int64_t* targets,
                          int64_t ignore_index, double scale, bool per_sample, int64_t batch, int64_t classes) {
  const T* upstream = grad_output.data_ptr<T>();
  T* out = grad_input.data_ptr<T>();
  launch_elements(
      batch,
      [=] __device__(int64_t i) {
        const int64_t t = targets[i];
        if (t == ignore_index) return;
        const double g = static_cast<double>(upstream[per_sample ? i : 0]);
        out[i * classes + t] = static_cast<T>(-g * scale);  // formed in double, rounded once
      },
      "nll_loss_backward");
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
  const int64_t classes = grad_input.dim() == 0 ? 1 : grad_input.size(-1);
  const int64_t batch = classes == 0 ? 0 : grad_input.numel() / classes;
  const int64_t* targets = target.data_ptr<int64_t>();
  visit_compute_dtype(grad_input.dtype(), [&](auto tag) {
    nll_loss_backward_as<decltype(tag)>(grad_input, grad_output, targets, ignore_index, scale, per_sample, batch,
                                        classes);
  });
}

}  // namespace ember::kernels::cuda
