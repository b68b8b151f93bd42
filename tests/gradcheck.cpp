// Finite-difference gradient check (see gradcheck.h).
#include "gradcheck.h"

#include <cmath>
#include <sstream>

using namespace ember;

namespace {

// Deterministic weights in [-1, 1] so the projection does not hide any output element.
Tensor projection(const Dims& sizes) {
  std::vector<double> values(product(sizes));
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(1.0 + 0.7 * static_cast<double>(i));
  return from_vector(values, sizes);
}

double scalar_objective(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                        const Tensor& r) {
  NoGradGuard no_grad;
  return (f(inputs) * r).sum().item<double>();
}

}  // namespace

std::string gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                      double eps, double atol, double rtol) {
  Tensor out = f(inputs);
  const Tensor r = projection(out.sizes()).to(out.dtype());
  (out * r).sum().backward();
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor& x = inputs[k];
    if (!x.requires_grad()) continue;
    const std::vector<double> analytic =
        x.grad().defined() ? x.grad().to_vector<double>() : std::vector<double>(x.numel(), 0.0);
    Tensor flat = x.detach().view({-1});
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double original = flat[i].item<double>();
      flat[i].fill_(original + eps);
      const double plus = scalar_objective(f, inputs, r);
      flat[i].fill_(original - eps);
      const double minus = scalar_objective(f, inputs, r);
      flat[i].fill_(original);
      const double numeric = (plus - minus) / (2 * eps);
      if (std::fabs(numeric - analytic[i]) > atol + rtol * std::fabs(numeric)) {
        std::ostringstream why;
        why << "input " << k << " element " << i << ": autograd " << analytic[i] << " vs finite differences "
            << numeric;
        return why.str();
      }
    }
  }
  return "";
}
