// A program of your own on ember: a small MLP trained a few steps, then its loss. Built by
// examples/consumer/CMakeLists.txt against an installed ember or a clone, as a test does.
#include <iostream>

#include "ember.h"

int main() {
  using namespace ember;
  manual_seed(0);
  nn::Sequential model{nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 1)};
  optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1));
  const Tensor x = randn({16, 4});
  const Tensor y = x.sum({1}, /*keepdim=*/true);
  float first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    optimizer.zero_grad();
    Tensor loss = mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
    (step == 0 ? first : last) = loss.item<float>();
  }
  std::cout << "loss " << first << " -> " << last << "\n";
  return last < first ? 0 : 1;
}
