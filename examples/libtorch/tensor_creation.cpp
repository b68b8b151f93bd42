// libtorch's "Tensor Creation API" page as a program: factory functions, their sizes and
// TensorOptions, and conversions. Random factories print only their sizes (ember's generator is
// not libtorch's for every one); the page's kInt32 is kInt64 here and its linspace is left out,
// since ember has neither. Prints the same built on libtorch or ember.
#include <iostream>

#include "torch_or_ember.h"

int main() {
  // Factories with a size: a brace list, or one number for one dimension.
  std::cout << torch::ones(5) << std::endl;
  std::cout << torch::zeros({2, 3}) << std::endl;
  std::cout << torch::randn({3, 4}).sizes() << std::endl;
  std::cout << torch::rand(7).sizes() << std::endl;
  std::cout << torch::empty({2, 2, 2}).sizes() << std::endl;
  std::cout << torch::randint(/*high=*/10, {5, 5}).sizes() << std::endl;
  std::cout << torch::randint(/*low=*/3, /*high=*/10, {5}).sizes() << std::endl;
  std::cout << torch::eye(3) << std::endl;
  std::cout << torch::full({2, 2}, 1.5) << std::endl;
  std::cout << torch::arange(5) << std::endl;
  std::cout << torch::arange(1, 3, 0.5) << std::endl;
  std::cout << torch::ones({2, 3, 2}) << std::endl;

  // TensorOptions: dtype, layout, device, requires_grad, chained.
  auto options =
      torch::TensorOptions().dtype(torch::kFloat32).layout(torch::kStrided).device(torch::kCPU).requires_grad(true);
  torch::Tensor tensor = torch::full({3, 4}, 123, options);
  std::cout << tensor.scalar_type() << " " << tensor.device() << " " << tensor.requires_grad() << std::endl;
  std::cout << torch::ones(3, torch::dtype(torch::kInt64)) << std::endl;
  std::cout << torch::ones(3, torch::dtype(torch::kFloat64).requires_grad(true)).requires_grad() << std::endl;
  std::cout << torch::ones(3, torch::requires_grad()).requires_grad() << std::endl;
  std::cout << torch::zeros({2}, torch::kInt64) << std::endl;
  std::cout << torch::ones({2}, torch::device(torch::kCPU).dtype(torch::kBool)) << std::endl;

  // Conversion: to() a dtype, and a tensor's own options for another factory.
  torch::Tensor floats = torch::ones({2, 3}, torch::kFloat32) * 2.75;
  torch::Tensor ints = floats.to(torch::kInt64);
  std::cout << ints << std::endl;
  std::cout << ints.toString() << " " << ints.to(torch::kFloat64).toString() << std::endl;
  torch::Tensor alike = torch::zeros({1, 2}, floats.options());
  std::cout << alike.scalar_type() << " " << alike.sizes() << std::endl;
  std::cout << torch::zeros_like(ints) << std::endl;
  std::cout << torch::tensor({1.5, -2.0, 1e6}) << std::endl;
  std::cout << torch::tensor({1e-5, 2e-3}) << std::endl;
  std::cout << torch::tensor({123.456, 0.5}) << std::endl;
}
