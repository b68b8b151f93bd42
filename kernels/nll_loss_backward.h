// nll_loss's backward kernel (its contract in kernel_list.h), one definition for the CPU kernel
// (kernels/loss.cpp) and the CUDA kernel (cuda/loss.cu), which differ only in how they run over the
// rows: a loop, or one GPU thread a row. nvcc compiles the row's work for the device too, as
// convert.h.
#pragma once
#include <cstdint>

#include "convert.h"  // EMBER_HOST_DEVICE
#include "core/tensor.h"
#include "visit_dtype.h"

namespace ember::kernels {

// Row i's one gradient, for element type T: grad_input[i, target[i]] = -grad_output[per_sample ? i
// : 0] * scale, formed in double and rounded once; an ignored row keeps grad_input's zeros.
template <typename T>
struct NllLossBackwardRow {
  const T* grad_output;
  T* grad_input;
  const int64_t* targets;
  int64_t classes, ignore_index;
  double scale;
  bool per_sample;

  EMBER_HOST_DEVICE void operator()(int64_t i) const {
    const int64_t t = targets[i];
    if (t == ignore_index) return;
    const double g = static_cast<double>(grad_output[per_sample ? i : 0]);
    grad_input[i * classes + t] = static_cast<T>(-g * scale);
  }
};

// nll_loss_backward for grad_input's dtype, seen as [batch, classes] rows (a 0-dim grad_input is
// one row of one class): `over_rows(batch, row)` calls row(i) for every row i < batch.
template <typename OverRows>
void run_nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target,
                           int64_t ignore_index, double scale, bool per_sample, OverRows over_rows) {
  const int64_t classes = grad_input.dim() == 0 ? 1 : grad_input.size(-1);
  const int64_t batch = classes == 0 ? 0 : grad_input.numel() / classes;
  const int64_t* targets = target.data_ptr<int64_t>();
  visit_compute_dtype(grad_input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    over_rows(batch, NllLossBackwardRow<T>{grad_output.data_ptr<T>(), grad_input.data_ptr<T>(), targets, classes,
                                           ignore_index, scale, per_sample});
  });
}

}  // namespace ember::kernels
