// GradScaler (grad_scaler.h), step by step as torch/amp/grad_scaler.py.
#include "grad_scaler.h"

#include <cmath>

#include "api/ops.h"
#include "core/grad_mode.h"

namespace ember {

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(static_cast<float>(options.init_scale)) {
  EMBER_CHECK(options.growth_factor > 1.0, "The growth factor must be > 1.0.");
  EMBER_CHECK(options.backoff_factor < 1.0, "The backoff factor must be < 1.0.");
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!options_.enabled) return outputs;
  scale_used_ = true;
  return outputs * scalar_tensor(scale_, Options(kFloat32).device(outputs.device()));
}

void GradScaler::unscale_(const optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  OptimizerState& state = optimizers_[&optimizer];
  EMBER_CHECK(state.stage != Stage::Unscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(state.stage != Stage::Stepped, "unscale_() is being called after step().");
  // inv_scale = float32(1 / float64(scale)); every gradient is multiplied by it, found inf or not.
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(scale_));
  NoGradGuard no_grad;
  // The check runs where the gradients are, as PyTorch's _amp_foreach_non_finite_check_and_unscale_
  // does: grad * 0 is 0 for every finite element and NaN for inf or NaN, so one sum per gradient,
  // summed again, is a 0-dim tensor that is NaN exactly when some gradient was not finite. Only its
  // final value crosses to the host: on a GPU, one wait per step instead of a copy of every gradient.
  Tensor non_finite_probe;
  for (const Tensor& p : optimizer.parameters()) {
    Tensor grad = p.grad();
    if (!grad.defined()) continue;
    EMBER_CHECK(grad.dtype() != kFloat16, "Attempting to unscale FP16 gradients.");
    const Tensor probe = (grad * 0).sum();  // queued before the multiplication below: the unscaled values
    non_finite_probe = non_finite_probe.defined() ? non_finite_probe + probe.to(non_finite_probe.device()) : probe;
    if (inv_scale != 1.0f) grad.mul_(scalar_tensor(inv_scale, Options(kFloat32).device(grad.device())));
  }
  state.found_inf = non_finite_probe.defined() && !std::isfinite(non_finite_probe.item<double>());
  state.stage = Stage::Unscaled;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  OptimizerState& state = optimizers_[&optimizer];
  EMBER_CHECK(state.stage != Stage::Stepped, "step() has already been called since the last update().");
  if (state.stage == Stage::Ready) unscale_(optimizer);
  const bool stepped = !state.found_inf;
  if (stepped) optimizer.step();
  state.stage = Stage::Stepped;
  return stepped;
}

void GradScaler::update(std::optional<double> new_scale) {
  if (!options_.enabled) return;
  if (new_scale) {
    scale_ = static_cast<float>(*new_scale);
  } else {
    bool found_inf = false;
    for (const auto& entry : optimizers_) found_inf = found_inf || entry.second.found_inf;
    if (found_inf) {
      scale_ = scale_ * static_cast<float>(options_.backoff_factor);
      growth_tracker_ = 0;
    } else if (growth_tracker_ + 1 == options_.growth_interval) {
      const float grown = scale_ * static_cast<float>(options_.growth_factor);
      if (std::isfinite(grown)) scale_ = grown;
      growth_tracker_ = 0;
    } else {
      ++growth_tracker_;
    }
  }
  optimizers_.clear();
}

double GradScaler::get_scale() const {
  if (!options_.enabled) return 1.0;
  return scale_used_ ? static_cast<double>(scale_) : options_.init_scale;
}

}  // namespace ember
