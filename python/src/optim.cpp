// ember.optim's optimizers and torch.cuda.amp's GradScaler: the C++ classes themselves, which the
// Python classes of python/ember/optim/ derive from. C++ holds the groups, their options and the
// state, and steps; Python holds torch's param_groups dicts, which hand every option they are given
// to their C++ group (_set_option), so a learning rate changed in a dict is the next step's. An
// optimizer is made in place (it cannot be copied: its state belongs to its parameters), with its
// defaults only (PyTorch's checks of them come first); Python then adds the groups.
#include <array>
#include <memory>

#include "bindings.h"

namespace ember::python {

namespace {

// One of torch's group options, given to the C++ options it belongs to. foreach names how PyTorch
// loops over the tensors, which gives the same steps; ember has one loop. Options ember has no
// code for are refused when they ask for it; keys no optimizer reads stay in Python's dict only.
template <typename Options>
void set_option(Options& options, const std::string& name, py::handle value) {
  if (name == "lr") options.lr(value.cast<double>());
  else if (name == "weight_decay") options.weight_decay(value.cast<double>());
  else if (name == "maximize") options.maximize(value.cast<bool>());
  else if (name == "differentiable" || name == "capturable" || name == "fused") {
    if (PyObject_IsTrue(value.ptr()) == 1) throw py::value_error("ember's optimizers have no " + name + "=True");
  } else if constexpr (std::is_same_v<Options, optim::SGDOptions>) {
    if (name == "momentum") options.momentum(value.cast<double>());
    else if (name == "dampening") options.dampening(value.cast<double>());
    else if (name == "nesterov") options.nesterov(value.cast<bool>());
  } else {
    if (name == "betas") options.betas(value.cast<std::array<double, 2>>());
    else if (name == "eps") options.eps(value.cast<double>());
    else if (name == "amsgrad") options.amsgrad(value.cast<bool>());
  }
}

void set_option(optim::OptimizerOptions& options, const std::string& name, py::handle value) {
  if (auto* sgd = dynamic_cast<optim::SGDOptions*>(&options)) return set_option(*sgd, name, value);
  if (auto* adam = dynamic_cast<optim::AdamOptions*>(&options)) return set_option(*adam, name, value);
  set_option(dynamic_cast<optim::AdamWOptions&>(options), name, value);
}

// A copy of `options` with every value of torch's dict given to it.
std::unique_ptr<optim::OptimizerOptions> options_from(const optim::OptimizerOptions& options, const py::dict& given) {
  std::unique_ptr<optim::OptimizerOptions> made = options.clone();
  for (auto [name, value] : given)
    if (name.cast<std::string>() != "params") set_option(*made, name.cast<std::string>(), value);
  return made;
}

py::object tensor_object(const Tensor& t) { return py::reinterpret_steal<py::object>(python_object_of(t)); }

py::dict state_as_dict(const optim::NamedTensors& state) {
  py::dict named;
  for (const auto& [name, value] : state) named[py::str(name)] = tensor_object(value);
  return named;
}

optim::NamedTensors state_from_dict(const py::dict& named) {
  optim::NamedTensors state;
  for (auto [name, value] : named)
    state.emplace_back(name.cast<std::string>(), value.is_none() ? Tensor() : value.cast<Tensor>());
  return state;
}

// Python's ValueError for what torch.optim refuses with one (PyTorch's texts are C++'s).
template <typename Call>
auto as_value_error(Call call) {
  try {
    return call();
  } catch (const Error& e) {
    throw py::value_error(e.what());
  }
}

// torch's optimizer.state_dict()['state'], and load_state_dict given torch's whole dict: the
// groups' options as Python's dicts give them.
py::dict saved_state(const optim::Optimizer& optimizer) {
  py::dict state;
  for (const auto& [index, named] : optimizer.state_dict().state) state[py::int_(index)] = state_as_dict(named);
  return state;
}

void load_state(optim::Optimizer& optimizer, const py::dict& state_dict) {
  optim::OptimizerStateDict loaded;
  for (auto [index, named] : state_dict["state"].cast<py::dict>())
    loaded.state[index.cast<int64_t>()] = state_from_dict(named.cast<py::dict>());
  size_t g = 0;
  for (py::handle group : state_dict["param_groups"]) {
    optim::OptimizerStateDict::ParamGroup& saved = loaded.param_groups.emplace_back();
    saved.params = group["params"].cast<std::vector<int64_t>>();
    if (g < optimizer.param_groups().size())  // a group too many is refused by load_state_dict
      saved.options = options_from(optimizer.param_groups()[g++].options(), group.cast<py::dict>());
  }
  as_value_error([&] { optimizer.load_state_dict(loaded); });
}

void bind_optimizers(py::module_& m) {
  py::class_<optim::Optimizer>(m, "_Optimizer")
      .def("step", &optim::Optimizer::step)
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = false)
      .def("_add_param_group",
           [](optim::Optimizer& optimizer, const std::vector<Tensor>& params, const py::dict& options) {
             optim::OptimizerParamGroup group(params, options_from(optimizer.defaults(), options));
             as_value_error([&] { optimizer.add_param_group(group); });
           })
      .def("_set_option",
           [](optim::Optimizer& optimizer, size_t group, const std::string& name, py::handle value) {
             set_option(optimizer.param_groups().at(group).options(), name, value);
           })
      .def("_set_params",
           [](optim::Optimizer& optimizer, size_t group, const std::vector<Tensor>& params) {
             optimizer.param_groups().at(group).params() = params;
           })
      .def("_state",
           [](const optim::Optimizer& optimizer) {
             py::list state;  // (parameter, its state), for the parameters that have one
             for (const Tensor& p : optimizer.parameters()) {
               auto found = optimizer.state().find(p.impl());
               if (found != optimizer.state().end())
                 state.append(py::make_tuple(tensor_object(p), state_as_dict(found->second->named_tensors())));
             }
             return state;
           })
      .def("_saved_state", &saved_state)
      .def("_load_state", &load_state);
  // Each made with its defaults (torch's keywords, as a dict), checked as PyTorch checks them.
  auto defaults_init = [](auto made) {
    return py::init([made](const py::dict& defaults) { return as_value_error([&] { return made(defaults); }); });
  };
  py::class_<optim::SGD, optim::Optimizer>(m, "_SGD").def(defaults_init([](const py::dict& defaults) {
    return std::make_unique<optim::SGD>(std::vector<optim::OptimizerParamGroup>{},
                                        static_cast<optim::SGDOptions&>(*options_from(optim::SGDOptions(0), defaults)));
  }));
  py::class_<optim::Adam, optim::Optimizer>(m, "_Adam").def(defaults_init([](const py::dict& defaults) {
    return std::make_unique<optim::Adam>(
        std::vector<optim::OptimizerParamGroup>{},
        static_cast<optim::AdamOptions&>(*options_from(optim::AdamOptions(), defaults)));
  }));
  py::class_<optim::AdamW, optim::Optimizer>(m, "_AdamW").def(defaults_init([](const py::dict& defaults) {
    return std::make_unique<optim::AdamW>(
        std::vector<optim::OptimizerParamGroup>{},
        static_cast<optim::AdamWOptions&>(*options_from(optim::AdamWOptions(), defaults)));
  }));
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
