// Modules as libtorch's "Using the PyTorch C++ Frontend" page writes them: a module of one's own
// with register_module and register_parameter, a submodule held by its ModuleHolder (filled in the
// constructor's initialiser, or from `{nullptr}` in its body), a forward that takes its Tensor by
// value, TORCH_MODULE, parameters by name, a Sequential of holders, and a few steps of SGD.
#include <iostream>

#include "torch_or_ember.h"

struct NetImpl : torch::nn::Module {
  NetImpl(int64_t N, int64_t M) : linear(register_module("linear", torch::nn::Linear(N, M))) {
    another_bias = register_parameter("b", torch::randn(M));
  }
  torch::Tensor forward(torch::Tensor input) { return linear(input) + another_bias; }
  torch::nn::Linear linear;
  torch::Tensor another_bias;
};
TORCH_MODULE(Net);

struct TwoLayers : torch::nn::Module {
  TwoLayers() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    fc2 = register_module("fc2", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2->forward(torch::relu(fc1->forward(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};

int main() {
  torch::manual_seed(0);
  Net net(4, 5);
  for (const auto& p : net->parameters()) std::cout << p << std::endl;  // b, then linear's
  for (const auto& pair : net->named_parameters()) std::cout << pair.key() << ": " << pair.value().sizes() << std::endl;
  std::cout << net(torch::ones({2, 4})) << std::endl;

  auto model = std::make_shared<TwoLayers>();
  torch::nn::Sequential sequential{torch::nn::Linear(4, 3), torch::nn::ReLU()};
  const torch::Tensor x = torch::randn({16, 4}), target = torch::randn({16, 1});
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  for (int step = 0; step < 5; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(x), target);
    loss.backward();
    optimizer.step();
    std::cout << "step " << step << " loss " << loss.item<float>() << std::endl;
  }
  std::cout << model->parameters().back() << std::endl;  // fc2's bias
  std::cout << sequential->forward(x.slice(0, 0, 2)) << std::endl;
  std::cout << sequential->size() << " modules in the Sequential" << std::endl;
}
