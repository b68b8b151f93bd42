// GradScaler: mixed-precision training's guard against float16 gradients that underflow to zero.
// The loss is multiplied by a large scale before backward, so small gradients stay representable;
// before the optimizer steps, the gradients are divided by it again (unscale_). If any gradient
// came out inf or NaN the scale was too large: that step is skipped and the scale shrinks; after
// growth_interval clean steps in a row it grows again. PyTorch's algorithm, defaults and error
// texts (torch/amp/grad_scaler.py, the CPU kernels in AmpGradScalerKernels.cpp).
//
//   GradScaler scaler;
//   scaler.scale(loss).backward();
//   scaler.step(optimizer);   // unscales, then steps unless a gradient was inf/NaN (SGD, Adam, AdamW)
//   scaler.update();
#pragma once
#include <map>
#include <optional>

#include "core/tensor.h"
#include "optimizer.h"

namespace ember {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2^16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  // outputs * scale (outputs itself when disabled).
  Tensor scale(const Tensor& outputs);
  // Divides the optimizer's gradients by the scale in place, noting whether any is inf or NaN.
  void unscale_(const optim::Optimizer& optimizer);
  // Unscales if not done yet, then runs optimizer.step() unless a gradient was inf or NaN.
  // Returns whether the optimizer stepped.
  bool step(optim::Optimizer& optimizer);
  // Shrinks the scale after a skipped step, grows it after growth_interval clean ones (or sets
  // new_scale), and readies every optimizer for the next iteration.
  void update(std::optional<double> new_scale = std::nullopt);
  // The current scale (init_scale before the first scale() call; 1 when disabled).
  double get_scale() const;
  int64_t growth_tracker() const { return growth_tracker_; }

 private:
  enum class Stage { Ready, Unscaled, Stepped };
  struct OptimizerState {
    Stage stage = Stage::Ready;
    bool found_inf = false;
  };
  GradScalerOptions options_;
  float scale_;                 // PyTorch keeps a 0-dim float32 tensor: the arithmetic is float32
  bool scale_used_ = false;     // scale() was called at least once
  int64_t growth_tracker_ = 0;  // clean steps in a row
  std::map<const optim::Optimizer*, OptimizerState> optimizers_;
};

}  // namespace ember
