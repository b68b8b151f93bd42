// gradcheck and gradgradcheck (see gradcheck.h), in the steps of PyTorch 1.13's gradcheck.py: check
// the inputs and evaluate the function; then, per output and input, the numerical and analytical
// quantities (whole Jacobians in slow mode, v^T J u in fast mode), the reentrancy of backward, and
// finally whether backward copes with undefined output gradients.
#include "gradcheck.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "api/new_tensors.h"
#include "api/ops.h"
#include "api/random.h"
#include "autograd/function.h"
#include "autograd/grad.h"
#include "autograd/node.h"
#include "autograd/record.h"
#include "core/grad_mode.h"
#include "core/warning.h"
#include "ops/printing.h"

namespace ember::autograd {

namespace {

std::vector<Tensor> requiring_grad(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> kept;
  for (const Tensor& t : tensors)
    if (t.defined() && t.requires_grad()) kept.push_back(t);
  return kept;
}

void check_inputs(const std::vector<Tensor>& inputs) {
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined() || !t.requires_grad()) continue;
    any = true;
    if (t.dtype() != kFloat64)
      warn(str_cat("Input #", i,
                   " requires gradient and is not a double precision floating point or complex. This check will "
                   "likely fail if all the inputs are not of double precision floating point or complex. "));
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(t.stride(d) > 0 || t.size(d) <= 1, "The ", i,
                  "th input has a dimension with stride 0. gradcheck only supports inputs that are non-overlapping to "
                  "be able to compute the numerical gradients correctly. You should call .contiguous on the input "
                  "before passing it to gradcheck.");
  }
  if (!any)
    throw ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them have "
                     "requires_grad=True.");
}

// The outputs that require grad, checked against the unperturbed ones' shapes and dtypes.
std::vector<Tensor> evaluate(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& reference, double eps) {
  std::vector<Tensor> outputs = requiring_grad(f(inputs));
  for (size_t i = 0; i < outputs.size() && i < reference.size(); ++i) {
    if (outputs[i].sizes() != reference[i].sizes())
      throw GradcheckFunctionError(
          str_cat("Expected `func` to return outputs with the same shape when inputs are perturbed by ",
                  internal::python_float_repr(eps), ", but got: shapes torch.Size(", to_string(outputs[i].sizes()),
                  ") and torch.Size(", to_string(reference[i].sizes()), ")."));
    if (outputs[i].dtype() != reference[i].dtype())
      throw GradcheckFunctionError(str_cat("Expected `func` to return outputs with the same dtype when inputs are "
                                           "perturbed by ",
                                           internal::python_float_repr(eps), ", but got: dtypes ", outputs[i].dtype(),
                                           " and ", reference[i].dtype(), "."));
  }
  return outputs;
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

// (f(x + eps * direction) - f(x - eps * direction)) / 2 eps for each output, flattened, where
// `perturb(sign)` moves the input in place (through .data: its own version counter, so that
// perturbing does not invalidate what a graph saved) and moves it back with sign 0.
std::vector<Tensor> central_difference(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                                       const std::vector<Tensor>& reference, double eps,
                                       const std::function<void(int)>& perturb) {
  // Each evaluation's values copied at once: an output may be a view of the input being moved.
  auto values = [&](int sign) {
    perturb(sign);
    std::vector<Tensor> copies;
    for (const Tensor& output : evaluate(f, inputs, reference, eps))
      copies.push_back(output.detach().to(kFloat64).clone(MemoryFormat::Contiguous).reshape({-1}));
    return copies;
  };
  const std::vector<Tensor> minus = values(-1), plus = values(+1);
  perturb(0);
  std::vector<Tensor> differences;
  for (size_t i = 0; i < plus.size(); ++i) differences.push_back((plus[i] - minus[i]) / (2 * eps));
  return differences;
}

Tensor backward_of(const Tensor& output, const std::vector<Tensor>& wrt, const Tensor& grad_output, size_t j) {
  const std::vector<Tensor> grads = grad({output}, wrt, {grad_output}, /*retain_graph=*/true, false, true);
  return grads[j].defined() ? grads[j].detach().to(kFloat64).reshape({-1}) : zeros({wrt[j].numel()}, kFloat64);
}

bool fail(const GradcheckOptions& options, const std::string& message) {
  if (options.raise_exception) throw GradcheckError(message);
  return false;
}

std::string not_reentrant(double nondet_tol) {
  return str_cat("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                 "gives different values, although analytical gradient matches numerical gradient.The tolerance for "
                 "nondeterminism was ",
                 internal::python_float_repr(nondet_tol), ".");
}

bool all_close(const Tensor& analytical, const Tensor& numerical, const GradcheckOptions& options) {
  const std::vector<double> a = analytical.to_vector<double>(), n = numerical.to_vector<double>();
  for (size_t k = 0; k < a.size(); ++k)
    if (!(std::fabs(a[k] - n[k]) <= options.atol + options.rtol * std::fabs(n[k]))) return false;
  return true;
}

double max_difference(const Tensor& a, const Tensor& b) {
  double largest = 0;
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t k = 0; k < x.size(); ++k) largest = std::max(largest, std::fabs(x[k] - y[k]));
  return largest;
}

bool any_nonzero(const Tensor& t) {
  for (double value : t.to_vector<double>())
    if (value != 0) return true;
  return false;
}

Tensor dot(const Tensor& a, const Tensor& b) { return (a * b).sum(); }

// Slow mode: each Jacobian whole.
bool check_jacobians(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                     const std::vector<Tensor>& outputs, const GradcheckOptions& options) {
  const std::vector<std::vector<Tensor>> numerical = numerical_jacobians(f, inputs, options.eps);
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const AnalyticalJacobians analytical = analytical_jacobians(inputs, outputs[i], options.nondet_tol);
    if (!analytical.reentrant) return fail(options, not_reentrant(options.nondet_tol));
    for (size_t j = 0; j < wrt.size(); ++j) {
      if (all_close(analytical.jacobians[j], numerical[i][j], options)) continue;
      std::ostringstream message;
      message << "Jacobian mismatch for output " << i << " with respect to input " << j
              << ",\nnumerical:" << numerical[i][j].str() << "\nanalytical:" << analytical.jacobians[j].str() << "\n";
      return fail(options, message.str());
    }
  }
  return true;
}

// Fast mode: v_i^T J_ij u_j for random u (per input, unit length) and v (per output).
bool check_projections(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& outputs, const GradcheckOptions& options) {
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  std::vector<Tensor> u, v;
  for (const Tensor& input : wrt) {
    Tensor direction = rand({input.numel()}, kFloat64);
    u.push_back(direction / direction.pow(2).sum().sqrt());
  }
  for (const Tensor& output : outputs) v.push_back(rand({output.numel()}, kFloat64));
  for (size_t j = 0; j < wrt.size(); ++j) {
    Tensor data = wrt[j].data();
    const Tensor original = data.clone();
    const Tensor step = (u[j] * options.eps).to(data.dtype()).reshape(data.sizes());
    const std::vector<Tensor> jvps = central_difference(
        f, inputs, outputs, options.eps, [&](int sign) { data.copy_(sign == 0 ? original : original + step * sign); });
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor grad_output = v[i].reshape(outputs[i].sizes()).to(outputs[i].dtype());
      const Tensor first = dot(backward_of(outputs[i], wrt, grad_output, j), u[j]);
      const Tensor second = dot(backward_of(outputs[i], wrt, grad_output, j), u[j]);
      if (max_difference(first, second) > options.nondet_tol) return fail(options, not_reentrant(options.nondet_tol));
      const Tensor numerical = dot(jvps[i], v[i]).reshape({1});
      if (all_close(first.reshape({1}), numerical, options)) continue;
      std::ostringstream message;
      message << "Jacobian mismatch for output " << i << " with respect to input " << j
              << ",\nnumerical:" << numerical.str() << "\nanalytical:" << first.reshape({1}).str()
              << "\n\nThe above quantities relating the numerical and analytical jacobians are computed \nin fast "
                 "mode (v^T J u for random vectors u and v).\n";
      return fail(options, message.str());
    }
  }
  return true;
}

// gradcheck's probe for a backward given an undefined gradient: t passed through a function whose
// backward passes back nothing (PyTorch's torch._C._functions.UndefinedGrad).
struct UndefinedGrad : Function<UndefinedGrad> {
  static Tensor forward(AutogradContext*, const Tensor& t) { return t; }
  static std::vector<Tensor> backward(AutogradContext*, const std::vector<Tensor>&) { return {Tensor()}; }
};
Tensor undefined_gradient_of(const Tensor& t) { return UndefinedGrad::apply(t); }

bool check_undefined_grad(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options) {
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  auto refuse = [&](const std::string& message) {
    warn("Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it "
         "may break existing callers of this function. If this is true for you, you can call this function with "
         "\"check_undefined_grad=False\" to disable the feature");
    return fail(options, message);
  };
  const size_t count = requiring_grad(f(inputs)).size();
  // Every output undefined at once, then (with several outputs) one at a time.
  for (size_t undefined = 0; undefined <= (count > 1 ? count : 0); ++undefined) {
    std::vector<Tensor> outputs = requiring_grad(f(inputs)), grad_outputs;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (undefined == 0 || undefined == i + 1) outputs[i] = undefined_gradient_of(outputs[i]);
      grad_outputs.push_back(zeros_like(outputs[i]));
    }
    std::vector<Tensor> grads;
    try {
      grads = grad(outputs, wrt, grad_outputs, std::nullopt, false, /*allow_unused=*/true);
    } catch (const std::exception&) {  // whatever the backward raised, a hook's own error included
      return refuse("Expected backward function to handle undefined output grads. Please look at \"Notes about "
                    "undefined output gradients\" in \"tools/autograd/derivatives.yaml\"");
    }
    for (const Tensor& g : grads)
      if (g.defined() && any_nonzero(g))
        return refuse("Expected all input grads to be undefined or zero when all output grads are undefined or "
                      "zero. Please look at \"Notes about undefined output gradients\" in "
                      "\"tools/autograd/derivatives.yaml\"");
  }
  return true;
}

}  // namespace

std::vector<std::vector<Tensor>> numerical_jacobians(const DifferentiableFunction& f, const std::vector<Tensor>& inputs,
                                                     double eps) {
  AutoGradMode grad_mode(true);
  const std::vector<Tensor> outputs = requiring_grad(f(inputs));
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  std::vector<std::vector<Tensor>> jacobians(outputs.size());
  for (size_t j = 0; j < wrt.size(); ++j) {
    const Tensor data = wrt[j].data();
    std::vector<std::vector<Tensor>> columns(outputs.size());
    for (int64_t k = 0; k < data.numel(); ++k) {
      Tensor entry = element(data, k);
      const double original = entry.item<double>();
      const std::vector<Tensor> differences =
          central_difference(f, inputs, outputs, eps, [&](int sign) { entry.fill_(original + sign * eps); });
      for (size_t i = 0; i < outputs.size(); ++i) columns[i].push_back(differences[i]);
    }
    for (size_t i = 0; i < outputs.size(); ++i)
      jacobians[i].push_back(columns[i].empty() ? zeros({0, outputs[i].numel()}, kFloat64) : stack(columns[i], 0));
  }
  return jacobians;
}

AnalyticalJacobians analytical_jacobians(const std::vector<Tensor>& inputs, const Tensor& output, double nondet_tol) {
  const std::vector<Tensor> wrt = requiring_grad(inputs);
  AnalyticalJacobians result;
  for (const Tensor& input : wrt) result.jacobians.push_back(zeros({input.numel(), output.numel()}, kFloat64));
  for (int64_t m = 0; m < output.numel(); ++m) {
    Tensor one_hot = zeros(output.sizes(), output.options());
    one_hot.view({-1})[m].fill_(1);
    for (size_t j = 0; j < wrt.size(); ++j) {
      const Tensor row = backward_of(output, wrt, one_hot, j), again = backward_of(output, wrt, one_hot, j);
      if (max_difference(row, again) > nondet_tol) result.reentrant = false;
      result.jacobians[j].select(1, m).copy_(row);
    }
  }
  return result;
}

bool gradcheck(const DifferentiableFunction& f, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  check_inputs(inputs);
  AutoGradMode grad_mode(true);
  const std::vector<Tensor> outputs = requiring_grad(f(inputs));
  if (outputs.empty()) {  // nothing to differentiate: the function must not depend on the inputs
    const std::vector<Tensor> all = f(inputs);
    const std::vector<Tensor> wrt = requiring_grad(inputs);
    for (size_t j = 0; j < wrt.size(); ++j) {
      const Tensor data = wrt[j].data();
      for (int64_t k = 0; k < data.numel(); ++k) {
        Tensor entry = element(data, k);
        const double original = entry.item<double>();
        entry.fill_(original + options.eps);
        const std::vector<Tensor> moved = f(inputs);
        entry.fill_(original);
        for (size_t i = 0; i < all.size() && i < moved.size(); ++i)
          if (all[i].defined() && moved[i].defined() && all[i].is_floating_point() && !equal(all[i], moved[i]))
            return fail(options, "Numerical gradient for function expected to be zero");
      }
    }
    return true;
  }
  const bool close =
      options.fast_mode ? check_projections(f, inputs, outputs, options) : check_jacobians(f, inputs, outputs, options);
  if (!close) return false;
  return !options.check_undefined_grad || check_undefined_grad(f, inputs, options);
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
