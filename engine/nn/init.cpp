// Parameter initialisation, computed as torch/nn/init.py computes it: the bounds in double with
// the same formulas (so they round the same way), then one uniform_ call under no_grad, which
// draws from the default generator in memory order and bumps the version counter once.
#include "init.h"

#include <cmath>

#include "api/random.h"
#include "core/grad_mode.h"

namespace ember::nn::init {

Tensor& uniform_(Tensor& t, double from, double to) {
  NoGradGuard no_grad;
  return ember::uniform_(t, from, to);
}

Tensor& kaiming_uniform_(Tensor& t, double a) {
  if (t.numel() == 0) return t;  // PyTorch warns "Initializing zero-element tensors is a no-op"
  EMBER_CHECK(t.dim() >= 2, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  // fan_in: inputs per output, times the receptive field (the sizes after the first two).
  int64_t fan_in = t.size(1);
  for (int64_t d = 2; d < t.dim(); ++d) fan_in *= t.size(d);
  const double gain = std::sqrt(2.0 / (1 + a * a));  // calculate_gain('leaky_relu', a)
  const double std = gain / std::sqrt(static_cast<double>(fan_in));
  const double bound = std::sqrt(3.0) * std;
  return init::uniform_(t, -bound, bound);
}

}  // namespace ember::nn::init
