// GradScaler (engine/optim/grad_scaler.h) with PyTorch's algorithm: the scale backs off after a step
// with inf/NaN gradients (which is skipped), grows after growth_interval clean steps, and the
// unscaled gradients are the ones float32 training would have had. The last case is the reason
// it exists: a float16 model whose gradients underflow learns only with the scaler.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "device_cases.h"
#include "ember.h"

using namespace ember;

namespace {

// One parameter p with loss = sum(p * input): its gradient is `input`.
struct OneParameter {
  Tensor p = full({3}, 1.0, Options().requires_grad());
  optim::SGD sgd{{p}, optim::SGDOptions(0.5)};
  Tensor loss(const Tensor& input) const { return (p * input).sum(); }
};

}  // namespace

TEST_CASE("GradScaler starts at 2^16, backs off after an inf step and grows after growth_interval clean steps",
          "[amp]") {
  OneParameter model;
  GradScaler scaler({.growth_interval = 3});
  CHECK(scaler.get_scale() == 65536.0);
  auto iteration = [&](double value) {
    model.sgd.zero_grad();
    scaler.scale(model.loss(full({3}, value))).backward();
    const bool stepped = scaler.step(model.sgd);
    scaler.update();
    return stepped;
  };
  CHECK_FALSE(iteration(std::numeric_limits<double>::infinity()));
  CHECK(scaler.get_scale() == 32768.0);
  CHECK(iteration(1.0));
  CHECK(iteration(1.0));
  CHECK(scaler.get_scale() == 32768.0);
  CHECK(iteration(1.0));  // the third clean step in a row
  CHECK(scaler.get_scale() == 65536.0);
  CHECK(scaler.growth_tracker() == 0);
  CHECK_FALSE(iteration(std::nan("")));
  CHECK(scaler.get_scale() == 32768.0);
}

TEST_CASE("a step with a non-finite gradient is skipped and leaves the parameters untouched", "[amp]") {
  OneParameter model;
  GradScaler scaler;
  scaler.scale(model.loss(tensor({1, std::numeric_limits<double>::infinity(), 2}))).backward();
  const uint32_t version = model.p._version();
  CHECK_FALSE(scaler.step(model.sgd));
  CHECK(model.p.tolist_str() == "[1.0, 1.0, 1.0]");
  CHECK(model.p._version() == version);
}

TEST_CASE("GradScaler steps any optimizer: Adam takes the unscaled gradients' step, and skips a non-finite one",
          "[amp]") {
  Tensor p = full({3}, 1.0, Options().requires_grad()), q = full({3}, 1.0, Options().requires_grad());
  optim::Adam scaled({p}, optim::AdamOptions(0.1)), plain({q}, optim::AdamOptions(0.1));
  GradScaler scaler;
  scaler.scale((p * tensor({1, -2, 4})).sum()).backward();
  (q * tensor({1, -2, 4})).sum().backward();
  CHECK(scaler.step(scaled));
  plain.step();
  CHECK(equal(p, q));  // the scale is a power of two: unscaling gives the gradients back exactly
  scaler.update();
  scaled.zero_grad();
  scaler.scale((p * tensor({1, std::numeric_limits<double>::infinity(), 4})).sum()).backward();
  CHECK_FALSE(scaler.step(scaled));
  CHECK(equal(p, q));
}

TEST_CASE("unscaled gradients equal the gradients of the unscaled loss", "[amp]") {
  OneParameter scaled_model, plain_model;
  const Tensor input = tensor({0.125, -3.5, 7.0});
  GradScaler scaler;
  scaler.scale(scaled_model.loss(input)).backward();
  CHECK(scaled_model.p.grad().tolist_str() == "[8192.0, -229376.0, 458752.0]");
  scaler.unscale_(scaled_model.sgd);
  plain_model.loss(input).backward();
  CHECK(equal(scaled_model.p.grad(), plain_model.p.grad()));
  CHECK(scaler.step(scaled_model.sgd));  // already unscaled: step does not unscale again
  CHECK(scaled_model.p.tolist_str() == "[0.9375, 2.75, -2.5]");
}

DEVICE_TEST_CASE("GradScaler on device tensors checks for inf on the device and skips that step", "[amp]") {
  Tensor p = full({3}, 1.0, Options().device(device).requires_grad());
  optim::SGD sgd({p}, optim::SGDOptions(0.5));
  GradScaler scaler;
  scaler.scale((p * tensor({1, std::numeric_limits<double>::infinity(), 2}).to(device)).sum()).backward();
  CHECK_FALSE(scaler.step(sgd));
  scaler.update();
  CHECK(scaler.get_scale() == 32768.0);
  CHECK(p.to(kCPU).tolist_str() == "[1.0, 1.0, 1.0]");
  sgd.zero_grad();
  scaler.scale((p * tensor({0.125, -3.5, 7.0}).to(device)).sum()).backward();
  CHECK(scaler.step(sgd));
  CHECK(p.grad().device() == device);
  CHECK(p.grad().to(kCPU).tolist_str() == "[0.125, -3.5, 7.0]");
  CHECK(p.to(kCPU).tolist_str() == "[0.9375, 2.75, -2.5]");
}

TEST_CASE("GradScaler refuses misuse with PyTorch's messages", "[amp][errors]") {
  CHECK_THROWS_WITH(GradScaler({.growth_factor = 1.0}), "The growth factor must be > 1.0.");
  CHECK_THROWS_WITH(GradScaler({.backoff_factor = 1.0}), "The backoff factor must be < 1.0.");
  OneParameter model;
  GradScaler scaler;
  scaler.scale(model.loss(ones({3}))).backward();
  scaler.unscale_(model.sgd);
  CHECK_THROWS_WITH(scaler.unscale_(model.sgd),
                    "unscale_() has already been called on this optimizer since the last update().");
  scaler.step(model.sgd);
  CHECK_THROWS_WITH(scaler.step(model.sgd), "step() has already been called since the last update().");
  CHECK_THROWS_WITH(scaler.unscale_(model.sgd), "unscale_() is being called after step().");
  scaler.update();
  model.p.mutable_grad() = ones({3}, kFloat16);
  CHECK_THROWS_WITH(scaler.unscale_(model.sgd), "Attempting to unscale FP16 gradients.");
}

TEST_CASE("a disabled GradScaler is a pass-through", "[amp]") {
  OneParameter model;
  GradScaler scaler({.enabled = false});
  Tensor loss = model.loss(ones({3}));
  CHECK(scaler.scale(loss).is_same(loss));
  CHECK(scaler.get_scale() == 1.0);
  loss.backward();
  CHECK(scaler.step(model.sgd));
  CHECK(model.p.tolist_str() == "[0.5, 0.5, 0.5]");
}

// A float16 regression whose loss is tiny (here: multiplied by 1e-8), so the gradients reaching
// the float16 activations are below float16's smallest subnormal (6e-8): without the scaler they
// flush to zero and nothing is learned; with it they survive, and the loss falls. It runs on the
// checking device, whose autocast is CUDA's (float16): PyTorch 1.13's CPU autocast takes bfloat16 only.
TEST_CASE("float16 training whose gradients underflow learns only with GradScaler", "[amp][chapter]") {
  auto train = [](bool use_scaler) {
    manual_seed(0);
    nn::Sequential model{nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 1)};
    model->to(checked_device(0));
    optim::SGD sgd(model->parameters(), optim::SGDOptions(5e6));  // 1e-8 * 5e6: a learning rate of 0.05
    GradScaler scaler({.enabled = use_scaler});
    Tensor x = randn({16, 4}).to(checked_device(0)), target = x.sum({1}, true) * 0.5;
    auto loss_now = [&] {
      AutocastGuard autocast(DeviceType::Checked, kFloat16);
      return mse_loss(model(x), target) * 1e-8;
    };
    const double first = loss_now().item<double>();
    for (int step = 0; step < 50; ++step) {
      sgd.zero_grad();
      scaler.scale(loss_now()).backward();
      scaler.step(sgd);
      scaler.update();
    }
    return loss_now().item<double>() / first;
  };
  CHECK(train(false) == 1.0);  // every float16 gradient underflowed: not a single update
  CHECK(train(true) < 0.5);
}
