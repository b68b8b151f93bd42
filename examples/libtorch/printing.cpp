// How libtorch prints tensors (std::cout << t), case by case: a common factor for large or small
// values, scientific notation for a wide range, nan and inf, integers, column blocks of a wide
// matrix, a 4-d tensor, empty, 0-d and undefined tensors, and the stream's own precision for a 0-d
// tensor. Prints the same built on libtorch or ember.
#include <iomanip>
#include <iostream>
#include <limits>

#include "torch_or_ember.h"

int main() {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::cout << "A\n" << torch::tensor({12345.5, 67890.25}) << std::endl;
  std::cout << "B\n" << torch::tensor({1e-7, 2e-7}).reshape({1, 2}) << std::endl;
  std::cout << "C\n" << torch::tensor({1.5, nan, -inf, 2.0}) << std::endl;
  std::cout << "D\n" << torch::tensor({1e12, 3.0}).to(torch::kFloat64) << std::endl;
  std::cout << "E\n" << torch::arange(30, torch::kFloat32).reshape({2, 15}) * 1.5 << std::endl;
  std::cout << "F\n" << torch::ones({2, 1, 2, 2}) << std::endl;
  std::cout << "G\n" << torch::zeros({0, 3}) << std::endl;
  std::cout << "H\n" << torch::tensor({2.5}).reshape({}).to(torch::kFloat64) << std::endl;
  std::cout << "I\n" << torch::tensor({-0.5, 0.25}).reshape({2, 1}) << std::endl;
  std::cout << "J\n" << torch::Tensor() << std::endl;
  std::cout << "K\n" << torch::tensor({1e-3, 1e-2}).reshape({2, 1}) << std::endl;
  std::cout << "L\n" << torch::full({2, 3}, 10000000000.0, torch::kFloat64) << std::endl;
  std::cout << "M\n" << torch::tensor({1e200, 1.0}, torch::kFloat64) << std::endl;
  std::cout << "N\n" << torch::tensor({0.0, 0.0}) << std::endl;
  std::cout << "O\n" << torch::tensor({3.25}).reshape({}) << 7 << std::endl;
  std::cout << "P\n" << std::setprecision(2) << torch::tensor({3.14159}).reshape({}) << 3.14159 << std::endl;
}
