// nn::ReLU: max(x, 0) element-wise, as a module so it can sit in a Sequential.
#pragma once
#include "module.h"

namespace ember::nn {

class ReLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) override { return relu(input); }
};

TORCH_MODULE(ReLU);

}  // namespace ember::nn
