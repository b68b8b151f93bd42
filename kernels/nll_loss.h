// nll_loss's element work (its contracts in kernel_list.h), one definition for the CPU kernels
// (kernels/loss.cpp) and the CUDA kernels (cuda/loss.cu), which differ only in how they run it: a
// loop, or GPU threads. nvcc compiles it for the device too, as convert.h.
//
// The reduced forward pass is one sequential walk over the elements in ATen's order (its CPU
// kernels' 8-level cascade of partial sums, LossNLL.cpp and LossNLL2d.cpp), so a loss reduced here
// has PyTorch's bits on every device; the GPU runs that walk in one thread.
#pragma once
#include <cstdint>

#include "convert.h"  // EMBER_HOST_DEVICE
#include "core/tensor.h"

namespace ember::kernels {

// What a forward walk reports: no target out of bounds, or the first one found.
inline constexpr int64_t kNoBadTarget = INT64_MIN;

// The operands seen as [batch, classes, inner] for element type T: element e = b * inner + i has
// target targets[e] and reads input[b, targets[e], i]; weight null when every class weighs 1.
template <typename T>
struct NllLossOperands {
  const T* input;
  const int64_t* targets;
  const T* weight;
  int64_t classes, inner, ignore_index;

  EMBER_HOST_DEVICE bool in_range(int64_t t) const { return t >= 0 && t < classes; }
  EMBER_HOST_DEVICE int64_t offset(int64_t e, int64_t t) const {
    return ((e / inner) * classes + t) * inner + e % inner;
  }
  EMBER_HOST_DEVICE T weight_of(int64_t t) const { return weight != nullptr ? weight[t] : T(1); }

  // Element e's loss, -w * x (0 when ignored), into out[e]; returns its target when out of range.
  EMBER_HOST_DEVICE int64_t element(int64_t e, T* out) const {
    const int64_t t = targets[e];
    out[e] = T(0);
    if (t == ignore_index) return kNoBadTarget;
    if (!in_range(t)) return t;
    out[e] = -input[offset(e, t)] * weight_of(t);
    return kNoBadTarget;
  }

  // The reduced loss of elements [0, count) and their total weight, summed as ATen sums them:
  // each counted element into level 0, and after element e, every level j whose bits of e are all
  // zero moves into level j + 1 (an ignored element moves nothing). Returns the first bad target.
  EMBER_HOST_DEVICE int64_t reduce(int64_t count, bool mean, T* output, T* total_weight) const {
    constexpr int kLevels = 8;
    int64_t ceil_log2 = 1;  // c10's CeilLog2(count)
    if (count > 2) {
      ceil_log2 = 0;
      for (uint64_t v = static_cast<uint64_t>(count) - 1; v != 0; v >>= 1) ++ceil_log2;
    }
    const int64_t level_power = ceil_log2 / kLevels > 4 ? ceil_log2 / kLevels : 4;
    const int64_t level_mask = (int64_t{1} << level_power) - 1;
    T loss[kLevels], weights[kLevels];
    for (int j = 0; j < kLevels; ++j) loss[j] = weights[j] = T(0);
    int64_t ignored = 0;
    for (int64_t e = 0; e < count; ++e) {
      const int64_t t = targets[e];
      if (t == ignore_index) {
        ++ignored;
        continue;
      }
      if (!in_range(t)) return t;
      const T x = input[offset(e, t)];
      if (weight != nullptr) {
        loss[0] -= x * weight[t];
        weights[0] += weight[t];
      } else {
        loss[0] -= x;
      }
      for (int j = 0; j + 1 < kLevels; ++j) {
        if ((e & (level_mask << (j * level_power))) != 0) break;
        loss[j + 1] += loss[j];
        loss[j] = T(0);
        weights[j + 1] += weights[j];
        weights[j] = T(0);
      }
    }
    T total = T(0), sum = T(0);
    for (int j = 0; j < kLevels; ++j) {
      total += weights[j];
      sum += loss[j];
    }
    if (weight == nullptr) total = static_cast<T>(count - ignored);
    *output = mean ? sum / total : sum;
    *total_weight = total;
    return kNoBadTarget;
  }
};

// One element's gradient, for element type T, into a zeroed grad_input of the input's layout:
// -w * grad_output[e] per element, or w * -(grad_output / total_weight) for the mean of the
// 0-dim grad_output (w * -grad_output for the sum), as ATen forms them.
template <typename T>
struct NllLossBackwardElement {
  NllLossOperands<T> at;  // its input is unused: grad_input has the input's layout
  T* grad_input;
  const T* grad_output;
  const T* total_weight;
  bool per_element, mean;

  EMBER_HOST_DEVICE void operator()(int64_t e) const {
    const int64_t t = at.targets[e];
    if (t == at.ignore_index || !at.in_range(t)) return;  // the forward pass refused a target out of range
    if (per_element) {
      grad_input[at.offset(e, t)] = -at.weight_of(t) * grad_output[e];
    } else {
      const T g = -(mean ? grad_output[0] / total_weight[0] : grad_output[0]);
      grad_input[at.offset(e, t)] = at.weight != nullptr ? at.weight[t] * g : g;
    }
  }
};

// The operands of an nll_loss kernel call, for element type T (target and weight as the contracts say).
template <typename T>
NllLossOperands<T> nll_loss_operands(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t classes,
                                     int64_t inner, int64_t ignore_index) {
  return {input.defined() ? input.data_ptr<T>() : nullptr,
          target.data_ptr<int64_t>(),
          weight.defined() ? weight.data_ptr<T>() : nullptr,
          classes,
          inner,
          ignore_index};
}

}  // namespace ember::kernels
