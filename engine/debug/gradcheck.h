// gradcheck and gradgradcheck: does autograd's gradient match finite differences? PyTorch's
// torch.autograd.gradcheck in C++ (Python's torch.autograd.gradcheck calls it). Slow mode compares
// the whole Jacobian of each output with respect to each input that requires grad: one column per
// input element from central differences, one row per output element from a backward with a
// one-hot gradient. Fast mode (PyTorch's, for big inputs) compares one number per pair instead:
// v^T J u for random vectors u and v, by one directional difference and one backward. Both check
// |analytical - numerical| <= atol + rtol |numerical|, that backward is reentrant (two runs agree
// within nondet_tol), and that a backward given undefined (zero) gradients copes. gradgradcheck
// checks the gradient's own gradient the same way, through autograd::grad with create_graph.
// Inputs should be float64: in float32 the differences lose about half the digits.
#pragma once
#include <functional>
#include <vector>

#include "core/tensor.h"

namespace ember::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // the finite-difference step
  double atol = 1e-5;  // PyTorch's defaults
  double rtol = 1e-3;
  double nondet_tol = 0.0;           // how far two backward runs with the same inputs may differ
  bool raise_exception = true;       // raise a GradcheckError naming the mismatch; false: return false
  bool check_undefined_grad = true;  // backward copes with undefined output gradients (PyTorch's default)
  bool fast_mode = false;            // v^T J u instead of the whole Jacobian
};

// What gradcheck raises when the gradients are wrong (PyTorch's GradcheckError, a RuntimeError).
struct GradcheckError : Error {
  using Error::Error;
};
// What it raises when the function itself changes the shape or dtype of its outputs as its inputs
// are perturbed (PyTorch raises AssertionError, a mistake in the function under test).
struct GradcheckFunctionError : Error {
  using Error::Error;
};

// A function of some tensors with one or several outputs; the outputs that require grad are checked.
using DifferentiableFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// True when every analytical Jacobian matches the numerical one; otherwise raises PyTorch's
// "Jacobian mismatch for output i with respect to input j" with both (or returns false).
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

// The Jacobians themselves, as float64 (input numel) x (output numel) matrices: what PyTorch's
// deprecated get_numerical_jacobian and get_analytical_jacobian return. numerical[i][j] is output i
// (of those requiring grad) with respect to input j (of those requiring grad).
std::vector<std::vector<Tensor>> numerical_jacobians(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                                                     double eps);
struct AnalyticalJacobians {
  std::vector<Tensor> jacobians;  // `output` with respect to each input requiring grad
  bool reentrant = true;          // two backward runs agreed within nondet_tol
};
AnalyticalJacobians analytical_jacobians(const std::vector<Tensor>& inputs, const Tensor& output, double nondet_tol);

}  // namespace ember::autograd
