// The loss modules' options, as libtorch's (torch/nn/options/loss.h), written with TORCH_ARG so that
// they chain: nn::CrossEntropyLoss(nn::CrossEntropyLossOptions().weight(w).ignore_index(0).reduction(kSum)).
// The functional forms take the same structs under libtorch's other names (F::NLLLossFuncOptions).
#pragma once
#include "api/ops.h"
#include "core/arg.h"

namespace ember::nn {

struct MSELossOptions {
  MSELossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT: nn::MSELoss(kSum), as libtorch's
  TORCH_ARG(Reduction, reduction);
};

// weight: a [C] tensor rescaling each class, or undefined; targets equal to ignore_index count nowhere.
struct NLLLossOptions {
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct CrossEntropyLossOptions {
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
}  // namespace functional

}  // namespace ember::nn
