// nn::Dropout: in training mode zeroes each element with probability p and scales the survivors by
// 1/(1-p), so the expected value is unchanged; in evaluation mode it is the identity. Forgetting
// eval() therefore makes two predictions on the same input differ (the chapter's second pitfall).
#pragma once
#include "module.h"

namespace ember::nn {

class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(double p = 0.5);
  Tensor forward(const Tensor& input) override { return dropout(input, p_, is_training()); }
  double p() const { return p_; }

 private:
  double p_;
};

TORCH_MODULE(Dropout);

}  // namespace ember::nn
