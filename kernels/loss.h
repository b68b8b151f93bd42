// Negative log-likelihood over the rows of a contiguous [batch, classes] tensor of
// log-probabilities, with class-index targets. A target equal to ignore_index contributes nothing
// and is not counted.
#pragma once
#include "core/tensor.h"

namespace ember::kernels::cpu {

// losses[i] = -log_probs[i, target[i]] (0 for ignored rows); returns how many rows were counted.
// log_probs: contiguous float32/float64 [batch, classes]; losses: contiguous [batch], same dtype;
// target: contiguous int64 with `batch` elements. Raises "Target N is out of bounds." for a class index outside [0,
// classes).
int64_t nll_loss_forward(const Tensor& losses, const Tensor& log_probs, const Tensor& target, int64_t ignore_index);
// grad_input[i, target[i]] = -grad_output[per_sample ? i : 0] * scale; grad_input (contiguous,
// float32/float64) arrives zeroed, grad_output is contiguous in the same dtype.
// The product is formed in double and rounded once.
void nll_loss_backward(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, int64_t ignore_index,
                       double scale, bool per_sample);

}  // namespace ember::kernels::cpu
