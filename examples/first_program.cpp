// A first program: a 2-layer MLP trained with SGD, then Adam, run in bf16 autocast, profiled.
#include <iostream>

#include "ember.h"

using namespace ember;

int main() {
  manual_seed(0);
  nn::Sequential model{nn::Linear(8, 32), nn::ReLU(), nn::Linear(32, 1)};
  const Tensor x = randn({64, 8});
  const Tensor y = x.sum({1}, /*keepdim=*/true);

  auto train = [&](optim::Optimizer& optimizer, int steps) {
    for (int step = 0; step < steps; ++step) {
      optimizer.zero_grad();
      Tensor loss = mse_loss(model(x), y);
      loss.backward();
      optimizer.step();
      if (step == steps - 1) std::cout << "loss " << loss.item() << "\n";  // item(): a Scalar
    }
  };
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.05));
  train(sgd, 50);
  optim::Adam adam(model->parameters(), optim::AdamOptions(1e-3));
  train(adam, 50);

  model->eval();
  {
    InferenceMode inference;
    AutocastGuard autocast(DeviceType::CPU);  // bf16 on the CPU
    Tensor prediction = model(x);
    std::cout << "prediction dtype " << prediction.dtype() << "\n";  // BFloat16
  }

  profiler::Profiler prof;
  mse_loss(model(x), y).backward();
  prof.stop();
  std::cout << prof.key_averages().table("self_cpu_time_total", 5);
}
