// ember.optim's optimizers and torch.cuda.amp's GradScaler: the C++ classes themselves. Optimizer
// is bound as the base of SGD, Adam and AdamW, as in C++, so that GradScaler.step(optimizer) takes
// any of them. An optimizer is made in place (it cannot be copied: its state belongs to its
// parameters), so each constructor hands pybind11 a unique_ptr.
#include <array>
#include <memory>
#include <set>

#include "bindings.h"

namespace ember::python {

namespace {

// The parameters as torch.optim.Optimizer checks them in Python: TypeErrors for a tensor given
// for the list and for an element that is no tensor.
std::vector<Tensor> parameters_from(const py::object& params) {
  if (py::isinstance<Tensor>(params))
    throw py::type_error("params argument given to the optimizer should be an iterable of Tensors or dicts, but got " +
                         torch_typename(params));
  std::vector<Tensor> parameters;
  for (py::handle p : params) {
    if (!py::isinstance<Tensor>(p))
      throw py::type_error("optimizer can only optimize Tensors, but one of the params is " + torch_typename(p));
    parameters.push_back(p.cast<Tensor>());
  }
  return parameters;
}

// Makes an optimizer as torch.optim's Python does: its checks of the options and parameters raise
// ValueError there, and a parameter given twice is a UserWarning after they pass.
template <typename Make>
auto made_as_in_python(const std::vector<Tensor>& parameters, Make make) {
  auto optimizer = [&] {
    try {
      return make();
    } catch (const Error& e) {
      throw py::value_error(e.what());
    }
  }();
  std::set<const TensorImpl*> seen;
  for (const Tensor& parameter : parameters) seen.insert(parameter.impl());
  if (seen.size() < parameters.size())
    warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; "
         "see github.com/pytorch/pytorch/issues/40967 for more information");
  return optimizer;
}

void bind_optimizers(py::module_& m) {
  py::class_<optim::Optimizer>(m, "Optimizer")
      .def("step", &optim::Optimizer::step)
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = false)
      .def_property_readonly("params", &optim::Optimizer::parameters);
  py::class_<optim::SGD, optim::Optimizer>(m, "SGD").def(
      py::init([](const py::object& params, double lr, double momentum, double dampening, double weight_decay,
                  bool nesterov) {
        const std::vector<Tensor> parameters = parameters_from(params);
        return made_as_in_python(parameters, [&] {
          return std::make_unique<optim::SGD>(parameters, optim::SGDOptions(lr)
                                                              .momentum(momentum)
                                                              .dampening(dampening)
                                                              .weight_decay(weight_decay)
                                                              .nesterov(nesterov));
        });
      }),
      py::arg("params"), py::arg("lr"), py::arg("momentum") = 0.0, py::arg("dampening") = 0.0,
      py::arg("weight_decay") = 0.0, py::arg("nesterov") = false);
  py::class_<optim::Adam, optim::Optimizer>(m, "Adam").def(
      py::init([](const py::object& params, double lr, std::array<double, 2> betas, double eps, double weight_decay,
                  bool amsgrad) {
        const std::vector<Tensor> parameters = parameters_from(params);
        return made_as_in_python(parameters, [&] {
          return std::make_unique<optim::Adam>(
              parameters, optim::AdamOptions(lr).betas(betas).eps(eps).weight_decay(weight_decay).amsgrad(amsgrad));
        });
      }),
      py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::array<double, 2>{0.9, 0.999},
      py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("amsgrad") = false);
  py::class_<optim::AdamW, optim::Optimizer>(m, "AdamW")
      .def(py::init([](const py::object& params, double lr, std::array<double, 2> betas, double eps,
                       double weight_decay, bool amsgrad) {
             const std::vector<Tensor> parameters = parameters_from(params);
             return made_as_in_python(parameters, [&] {
               return std::make_unique<optim::AdamW>(
                   parameters,
                   optim::AdamWOptions(lr).betas(betas).eps(eps).weight_decay(weight_decay).amsgrad(amsgrad));
             });
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = std::array<double, 2>{0.9, 0.999},
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 1e-2, py::arg("amsgrad") = false);
}

void bind_grad_scaler(py::module_& m) {
  py::class_<GradScaler>(m, "GradScaler")
      .def(py::init([](double init_scale, double growth_factor, double backoff_factor, int64_t growth_interval,
                       bool enabled) {
             return GradScaler({init_scale, growth_factor, backoff_factor, growth_interval, enabled});
           }),
           py::arg("init_scale") = 65536.0, py::arg("growth_factor") = 2.0, py::arg("backoff_factor") = 0.5,
           py::arg("growth_interval") = 2000, py::arg("enabled") = true)
      .def("scale", &GradScaler::scale, py::arg("outputs"))
      .def("unscale_", &GradScaler::unscale_, py::arg("optimizer"))
      // torch's step returns the optimizer's step() result, None, whether or not it skipped the step.
      .def(
          "step", [](GradScaler& scaler, optim::Optimizer& optimizer) { scaler.step(optimizer); }, py::arg("optimizer"))
      .def("update", &GradScaler::update, py::arg("new_scale") = py::none())
      .def("get_scale", &GradScaler::get_scale);
}

}  // namespace

void bind_optim(py::module_& m) {
  bind_optimizers(m);
  bind_grad_scaler(m);
}

}  // namespace ember::python
