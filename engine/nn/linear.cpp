// Linear's construction follows torch/nn/modules/linear.py: empty parameters (no random numbers
// drawn), then reset_parameters() draws the weight first, then the bias.
#include "linear.h"

#include <cmath>

#include "core/grad_mode.h"
#include "init.h"

namespace ember::nn {

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool bias)
    : in_features_(in_features),
      out_features_(out_features) {
  EMBER_CHECK(in_features >= 0 && out_features >= 0, "Trying to create tensor with negative dimension");
  register_parameter("weight", empty({out_features, in_features}));
  register_parameter("bias", bias ? empty({out_features}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (bias().defined()) {
    const double bound = in_features_ > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features_)) : 0.0;
    init::uniform_(bias(), -bound, bound);
  }
}

Tensor LinearImpl::forward(const Tensor& input) { return linear(input, weight(), bias()); }

}  // namespace ember::nn
