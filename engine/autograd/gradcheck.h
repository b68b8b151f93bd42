// gradcheck and gradgradcheck: does autograd's gradient match finite differences? PyTorch's
// torch.autograd.gradcheck (slow mode) in C++: the whole Jacobian of each output with respect to
// each input that requires grad, one column per input element from central differences and one
// row per output element from a backward with a one-hot gradient, compared with
// |analytical - numerical| <= atol + rtol |numerical|. gradgradcheck checks the gradient's own
// gradient the same way, through autograd::grad with create_graph. Inputs should be float64: in
// float32 the differences lose about half the digits.
#pragma once
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace ember::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // the finite-difference step
  double atol = 1e-5;  // PyTorch's defaults
  double rtol = 1e-3;
  double nondet_tol = 0.0;      // how far two backward runs with the same inputs may differ
  bool raise_exception = true;  // raise an Error naming the mismatch; false: return false
};

// A function of some tensors with one or several outputs; the outputs that require grad are checked.
using DifferentiableFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// True when every analytical Jacobian matches the numerical one; otherwise raises PyTorch's
// "Jacobian mismatch for output i with respect to input j" with both matrices (or returns false).
bool gradcheck(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options = {});
bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options = {});

// gradcheck of (inputs, grad_outputs) -> autograd::grad(f(inputs), inputs, grad_outputs,
// create_graph=true): second derivatives. Missing grad_outputs are made in [-1, 1] (fixed values,
// not PyTorch's random ones) and require grad.
bool gradgradcheck(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& grad_outputs = {}, const GradcheckOptions& options = {});
bool gradgradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& grad_outputs = {}, const GradcheckOptions& options = {});

}  // namespace ember::autograd
