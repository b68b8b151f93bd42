// gradcheck and gradgradcheck (see gradcheck.h), in the steps of PyTorch 1.13's _slow_gradcheck:
// check the inputs, compute the numerical Jacobians, then each output's analytical Jacobian (twice,
// to catch a backward that is not reentrant), and compare.
#include "gradcheck.h"

#include <cmath>
#include <sstream>

#include "core/grad_mode.h"
#include "core/warning.h"
#include "grad.h"
#include "ops/ops.h"
#include "ops/printing.h"

namespace ember::autograd {

namespace {

// The tensors among `tensors` that require grad: the inputs differentiated with respect to, and
// the outputs that are differentiated.
std::vector<Tensor> requiring_grad(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> kept;
  for (const Tensor& t : tensors)
    if (t.defined() && t.requires_grad()) kept.push_back(t);
  return kept;
}

// Each output's values, evaluated as the user's function runs (grad mode on: it may differentiate).
std::vector<std::vector<double>> evaluate(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                                          size_t outputs) {
  std::vector<Tensor> results = f(inputs);
  std::vector<std::vector<double>> values;
  for (const Tensor& result : requiring_grad(results)) values.push_back(result.detach().to_vector<double>());
  values.resize(outputs);
  return values;
}

// Element k of t in row-major order, as a 0-dim view (t may be non-contiguous).
Tensor element(const Tensor& t, int64_t k) {
  std::vector<int64_t> index(t.dim());
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    index[d] = k % t.size(d);
    k /= t.size(d);
  }
  Tensor e = t;
  for (int64_t i : index) e = e.select(0, i);
  return e;
}

// numerical[i][j]: output i with respect to input j, as (input numel) x (output numel) values.
using Jacobians = std::vector<std::vector<std::vector<double>>>;

Jacobians numerical_jacobians(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& outputs, double eps) {
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  Jacobians jacobians(outputs.size(), std::vector<std::vector<double>>(wrt.size()));
  for (size_t j = 0; j < wrt.size(); ++j) {
    // .data: its own version counter, so perturbing it does not invalidate what the graph saved.
    const Tensor data = wrt[j].data();
    for (int64_t k = 0; k < data.numel(); ++k) {
      Tensor entry = element(data, k);
      const double original = entry.item<double>();
      entry.fill_(original - eps);
      const auto minus = evaluate(f, inputs, outputs.size());
      entry.fill_(original + eps);
      const auto plus = evaluate(f, inputs, outputs.size());
      entry.fill_(original);
      for (size_t i = 0; i < outputs.size(); ++i)
        for (size_t m = 0; m < plus[i].size(); ++m) jacobians[i][j].push_back((plus[i][m] - minus[i][m]) / (2 * eps));
    }
  }
  return jacobians;
}

// analytical[j]: `output` with respect to input j, one backward per output element.
std::vector<std::vector<double>> analytical_jacobian(const Tensor& output, const std::vector<Tensor>& wrt) {
  std::vector<std::vector<double>> jacobian(wrt.size());
  for (size_t j = 0; j < wrt.size(); ++j) jacobian[j].assign(wrt[j].numel() * output.numel(), 0.0);
  for (int64_t m = 0; m < output.numel(); ++m) {
    Tensor one_hot = zeros(output.sizes(), Options(output.dtype()).device(output.device()));
    one_hot.view({-1})[m].fill_(1);
    const std::vector<Tensor> grads = grad({output}, wrt, {one_hot}, /*retain_graph=*/true, false, true);
    for (size_t j = 0; j < wrt.size(); ++j) {
      if (!grads[j].defined()) continue;
      const std::vector<double> row = grads[j].to_vector<double>();
      for (size_t k = 0; k < row.size(); ++k) jacobian[j][k * output.numel() + m] = row[k];
    }
  }
  return jacobian;
}

Tensor as_matrix(const std::vector<double>& values, const Tensor& input, const Tensor& output) {
  return from_vector(values, {input.numel(), output.numel()}, kFloat64);
}

bool fail(const GradcheckOptions& options, const std::string& message) {
  if (options.raise_exception) throw Error(message);
  return false;
}

}  // namespace

bool gradcheck(const DifferentiableFunction& f, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  EMBER_CHECK(!wrt.empty(), "gradcheck expects at least one input tensor to require gradient, but none of the them "
                            "have requires_grad=True.");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad() && inputs[i].dtype() != kFloat64)
      warn(str_cat("Input #", i,
                   " requires gradient and is not a double precision floating point or complex. This "
                   "check will likely fail if all the inputs are not of double precision floating point or complex. "));
  AutoGradMode grad_mode(true);
  const std::vector<Tensor> outputs = requiring_grad(f(inputs));
  const Jacobians numerical = numerical_jacobians(f, inputs, outputs, options.eps);
  if (outputs.empty()) {  // nothing to differentiate: the function must not depend on the inputs
    for (const auto& per_input : numerical)
      for (const auto& column : per_input)
        for (double value : column)
          if (value != 0) return fail(options, "Numerical gradient for function expected to be zero");
    return true;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto analytical = analytical_jacobian(outputs[i], wrt);
    const auto again = analytical_jacobian(outputs[i], wrt);
    for (size_t j = 0; j < wrt.size(); ++j) {
      for (size_t k = 0; k < analytical[j].size(); ++k) {
        if (std::fabs(analytical[j][k] - again[j][k]) > options.nondet_tol) {
          std::ostringstream message;
          message << "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                     "times gives different values, although analytical gradient matches numerical gradient.The "
                     "tolerance for nondeterminism was "
                  << internal::python_float_repr(options.nondet_tol) << ".";
          return fail(options, message.str());
        }
      }
      bool close = true;
      for (size_t k = 0; k < analytical[j].size(); ++k) {
        const double a = analytical[j][k], n = numerical[i][j][k];
        close = close && std::fabs(a - n) <= options.atol + options.rtol * std::fabs(n);
      }
      if (!close) {
        std::ostringstream message;
        message << "Jacobian mismatch for output " << i << " with respect to input " << j
                << ",\nnumerical:" << as_matrix(numerical[i][j], wrt[j], outputs[i])
                << "\nanalytical:" << as_matrix(analytical[j], wrt[j], outputs[i]) << "\n";
        return fail(options, message.str());
      }
    }
  }
  return true;
}

bool gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options) {
  return gradcheck(DifferentiableFunction([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{f(in)}; }),
                   inputs, options);
}

bool gradgradcheck(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& grad_outputs, const GradcheckOptions& options) {
  std::vector<Tensor> seeds = grad_outputs;
  if (seeds.empty()) {
    AutoGradMode grad_mode(true);
    for (const Tensor& output : requiring_grad(f(inputs))) {
      std::vector<double> values(output.numel());
      for (size_t k = 0; k < values.size(); ++k) values[k] = std::sin(0.5 + 1.7 * static_cast<double>(k));
      seeds.push_back(from_vector(values, output.sizes(), output.dtype()).to(output.device()).requires_grad_());
    }
  }
  const size_t n = inputs.size();
  const DifferentiableFunction first_derivatives = [&f, n](const std::vector<Tensor>& all) {
    const std::vector<Tensor> in(all.begin(), all.begin() + n), seeds_in(all.begin() + n, all.end());
    const std::vector<Tensor> outputs = requiring_grad(f(in));
    std::vector<Tensor> gradients = grad(outputs, requiring_grad(in), seeds_in, true, /*create_graph=*/true, true);
    std::vector<Tensor> defined;
    for (Tensor& gradient : gradients)
      if (gradient.defined()) defined.push_back(gradient);
    return defined;
  };
  std::vector<Tensor> all = inputs;
  all.insert(all.end(), seeds.begin(), seeds.end());
  return gradcheck(first_derivatives, all, options);
}

bool gradgradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& grad_outputs, const GradcheckOptions& options) {
  return gradgradcheck(
      DifferentiableFunction([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{f(in)}; }), inputs,
      grad_outputs, options);
}

}  // namespace ember::autograd
