// SavedTensor: a tensor an op keeps for its backward formula, plus the version it had when saved
// (saved_version). If an in-place op changes it before backward runs, the versions differ and
// backward raises PyTorch's "modified by an inplace operation" error instead of computing a
// wrong gradient.
//
// A node that saves its own output must not hold that output's TensorImpl (whose grad_fn is the
// node: a reference cycle that would never be freed). Like PyTorch, it keeps an alias of the same
// storage without autograd data, and remembers that it was output `output_nr` of its node.
#pragma once
#include <cstdint>

#include "tensor.h"

namespace ember::autograd {

struct SavedTensor {
  SavedTensor() = default;
  // Raises "Inference tensors cannot be saved for backward..." for inference tensors.
  SavedTensor(const Tensor& tensor, bool is_output, uint32_t output_nr = 0);

  Tensor tensor;               // undefined once freed by backward
  uint32_t saved_version = 0;  // the version counter's value when saved
  bool is_output = false;      // an output of the node that saved it
  uint32_t output_nr = 0;
};

}  // namespace ember::autograd
