// The loss loops (contracts in kernel_list.h), one generic body per dtype; nll_loss's backward
// row is nll_loss_backward.h's, which the CUDA kernel shares.
#include "kernel_list.h"

#include "nll_loss_backward.h"
#include "visit_dtype.h"

namespace ember::kernels::cpu {

int64_t nll_loss_forward(const Tensor& losses, const Tensor& log_probs, const Tensor& target, int64_t ignore_index) {
  const int64_t batch = losses.numel(), classes = log_probs.size(-1);
  const int64_t* targets = target.data_ptr<int64_t>();
  int64_t counted = 0;
  visit_compute_dtype(log_probs.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = log_probs.data_ptr<T>();
    T* out = losses.data_ptr<T>();
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t t = targets[i];
      if (t == ignore_index) {
        out[i] = T(0);
        continue;
      }
      EMBER_CHECK(t >= 0 && t < classes, "Target ", t, " is out of bounds.");
      out[i] = -in[i * classes + t];
      ++counted;
    }
  });
  return counted;
}

void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, int64_t ignore_index,
                       double scale, bool per_sample) {
  run_nll_loss_backward(grad_input, grad_output, target, ignore_index, scale, per_sample,
                        [](int64_t batch, const auto& row) {
                          for (int64_t i = 0; i < batch; ++i) row(i);
                        });
}

}  // namespace ember::kernels::cpu
