// What backward needs to know about a tensor to hand it a gradient of the right kind (PyTorch's
// InputMetadata): the engine reduces a broadcast gradient to `sizes` and casts it to `dtype` and
// `device`; a custom function makes zeros like it for an output that got no gradient.
#pragma once
#include "core/tensor.h"

namespace ember::autograd {

struct InputMeta {
  Dims sizes;
  DType dtype = kFloat32;
  Device device;
};

}  // namespace ember::autograd
