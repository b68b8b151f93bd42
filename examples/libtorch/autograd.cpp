// libtorch's "Autograd in C++ Frontend" page as a program: requires_grad, the graph's node names,
// backward with and without a gradient, no_grad, detach, and custom functions written with
// torch::autograd::Function. Fixed inputs instead of the page's randn, so that the numbers can be
// compared. Prints the same built on libtorch or ember.
#include <iostream>

#include "torch_or_ember.h"

using namespace torch::autograd;

// y = x w^T + b, with its own backward (the page's LinearFunction).
class LinearFunction : public Function<LinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0], weight = saved[1], bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_bias = bias.defined() ? grad_output.sum(0) : torch::Tensor();
    return {grad_output.mm(weight), grad_output.t().mm(input), grad_bias};
  }
};

// y = x * c, a constant kept in saved_data (the page's MulConstant).
class MulConstant : public Function<MulConstant> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

int main() {
  auto x = torch::ones({2, 2}, torch::requires_grad());
  std::cout << x << std::endl;
  auto y = x + 2;
  std::cout << y << std::endl << y.grad_fn()->name() << std::endl;
  auto z = y * y * 3;
  auto out = z.mean();
  std::cout << z << std::endl << z.grad_fn()->name() << std::endl;
  std::cout << out << std::endl << out.grad_fn()->name() << std::endl;

  auto a = torch::arange(1, 5, torch::kFloat32).reshape({2, 2});
  a = ((a * 3) / (a - 1));
  std::cout << a.requires_grad() << std::endl;
  a.requires_grad_(true);
  std::cout << a.requires_grad() << std::endl;
  auto b = (a * a).sum();
  std::cout << b.grad_fn()->name() << std::endl;

  out.backward();
  std::cout << x.grad() << std::endl;

  // Vector-Jacobian product: backward given the gradient of y.
  x = torch::tensor({0.5, -1.0, 2.0}, torch::requires_grad());
  y = x * 2;
  while (y.norm().item<double>() < 1000) y = y * 2;
  std::cout << y << std::endl << y.grad_fn()->name() << std::endl;
  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  y.backward(v);
  std::cout << x.grad() << std::endl;

  std::cout << x.requires_grad() << std::endl;
  std::cout << x.pow(2).requires_grad() << std::endl;
  {
    torch::NoGradGuard no_grad;
    std::cout << x.pow(2).requires_grad() << std::endl;
  }
  y = x.detach();
  std::cout << y.requires_grad() << std::endl << x.eq(y).all() << std::endl;

  // Custom functions.
  auto input = (torch::arange(6, torch::kFloat32).reshape({2, 3}) / 4).requires_grad_();
  auto weight = (torch::arange(12, torch::kFloat32).reshape({4, 3}) - 5).requires_grad_();
  auto bias = torch::ones({4}).requires_grad_();
  auto linear = LinearFunction::apply(input, weight, bias);
  linear.sum().backward();
  std::cout << linear << std::endl << input.grad() << std::endl;
  std::cout << weight.grad() << std::endl << bias.grad() << std::endl;

  auto w = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto scaled = MulConstant::apply(w, 5.5);
  scaled.sum().backward();
  std::cout << scaled << std::endl << w.grad() << std::endl;
}
