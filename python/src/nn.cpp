// ember.nn's modules: the C++ classes themselves. A module subclassed in
// Python (`class Net(nn.Module)` with its own forward) is a C++ Module whose forward calls back into
// Python, so it can sit in a C++ Sequential; registering a Python child also keeps its Python object
// alive as long as its parent (keep_alive), which the C++ parent's shared_ptr alone would not.
// nn.Module's Python conveniences (attribute registration, __call__, repr) are in ember/nn.
#include "bindings.h"

namespace ember::python {

namespace {

using nn::Module;

// A Module subclassed in Python: forward is the Python method.
class PythonModule : public Module {
 public:
  Tensor forward(const Tensor& input) override { PYBIND11_OVERRIDE_PURE(Tensor, Module, forward, input); }
};

template <typename M>
using module_class = py::class_<M, Module, std::shared_ptr<M>>;

// The methods that return the module in torch (train, eval, to, append) return the Python object.
template <typename M = Module>
M& as(py::handle self) {
  return self.cast<M&>();
}

// An absent bias or weight is None.
py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

py::list named(const NamedTensors& pairs) {
  py::list out;
  for (const auto& [name, tensor] : pairs) out.append(py::make_tuple(name, tensor));
  return out;
}

// torch's register_module and add_module, which return None.
void register_child(Module& self, const std::string& name, std::shared_ptr<Module> module) {
  self.register_module(name, std::move(module));
}

void bind_module(py::module_& m) {
  py::class_<Module, PythonModule, std::shared_ptr<Module>>(m, "Module", py::dynamic_attr())
      .def(py::init<>())
      .def("forward", &Module::forward, py::arg("input"))
      .def("parameters", &Module::parameters, py::arg("recurse") = true)
      .def(
          "named_parameters",
          [](const Module& module, bool recurse) { return named(module.named_parameters(recurse)); },
          py::arg("recurse") = true)
      .def("buffers", &Module::buffers, py::arg("recurse") = true)
      .def(
          "named_buffers", [](const Module& module, bool recurse) { return named(module.named_buffers(recurse)); },
          py::arg("recurse") = true)
      .def("children", &Module::children)
      .def("named_children",
           [](const Module& module) {
             py::list out;
             for (const auto& [name, child] : module.named_children()) out.append(py::make_tuple(name, child));
             return out;
           })
      .def(
          "train",
          [](py::object self, bool mode) {
            as(self).train(mode);
            return self;
          },
          py::arg("mode") = true)
      .def("eval",
           [](py::object self) {
             as(self).eval();
             return self;
           })
      .def_property_readonly("training", &Module::is_training)
      .def(
          "to",
          [](py::object self, Device device) {
            as(self).to(device);
            return self;
          },
          py::arg("device"))
      .def(
          "to",
          [](py::object self, DType dtype) {
            as(self).to(dtype);
            return self;
          },
          py::arg("dtype"))
      .def("zero_grad", &Module::zero_grad, py::arg("set_to_none") = false)
      .def(
          "_register_parameter",
          [](Module& module, const std::string& name, std::optional<Tensor> param) {
            return tensor_or_none(module.register_parameter(name, param.value_or(Tensor())));  // None: torch's
          },
          py::arg("name"), py::arg("param"))
      .def("_registered_parameters",
           [](const Module& module) {
             py::list out;  // torch's module._parameters: an absent one None
             for (const auto& [name, tensor] : module.registered_parameters())
               out.append(py::make_tuple(name, tensor_or_none(tensor)));
             return out;
           })
      .def(
          "replace_module",
          [](Module& self, const std::string& name, std::shared_ptr<Module> module) {
            self.replace_module(name, std::move(module));
          },
          py::arg("name"), py::arg("module"), py::keep_alive<1, 3>())
      .def("unregister_module", &Module::unregister_module, py::arg("name"))
      // Whether the C++ module is made yet: a Python subclass's __init__ may set attributes before
      // it calls Module.__init__, and no C++ method may be called on it until then.
      .def("_is_made",
           [](py::handle self) {
             return reinterpret_cast<py::detail::instance*>(self.ptr())->get_value_and_holder().holder_constructed();
           })
      .def("register_buffer", &Module::register_buffer, py::arg("name"), py::arg("tensor"))
      .def("register_module", &register_child, py::arg("name"), py::arg("module"), py::keep_alive<1, 3>())
      .def("add_module", &register_child, py::arg("name"), py::arg("module"), py::keep_alive<1, 3>());
}

void bind_layers(py::module_& m) {
  module_class<nn::LinearImpl>(m, "Linear")
      .def(py::init<int64_t, int64_t, bool>(), py::arg("in_features"), py::arg("out_features"), py::arg("bias") = true)
      .def_property_readonly("_weight", [](nn::LinearImpl& l) { return tensor_or_none(l.weight()); })
      .def_property_readonly("_bias", [](nn::LinearImpl& l) { return tensor_or_none(l.bias()); })
      .def_property_readonly("in_features", &nn::LinearImpl::in_features)
      .def_property_readonly("out_features", &nn::LinearImpl::out_features)
      .def("reset_parameters", &nn::LinearImpl::reset_parameters);
  module_class<nn::ReLUImpl>(m, "ReLU").def(py::init<>());
  module_class<nn::DropoutImpl>(m, "Dropout")
      .def(py::init<double>(), py::arg("p") = 0.5)
      .def_property_readonly("p", &nn::DropoutImpl::p);
  module_class<nn::LayerNormImpl>(m, "LayerNorm")
      .def(py::init([](py::object normalized_shape, double eps, bool elementwise_affine) {
             return std::make_shared<nn::LayerNormImpl>(dims_from_object(normalized_shape, "LayerNorm"), eps,
                                                        elementwise_affine);
           }),
           py::arg("normalized_shape"), py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true)
      .def_property_readonly("_weight", [](nn::LayerNormImpl& n) { return tensor_or_none(n.weight()); })
      .def_property_readonly("_bias", [](nn::LayerNormImpl& n) { return tensor_or_none(n.bias()); })
      .def_property_readonly("normalized_shape", [](const nn::LayerNormImpl& n) { return n.normalized_shape().vec(); })
      .def_property_readonly("eps", &nn::LayerNormImpl::eps);
}

}  // namespace

void bind_nn(py::module_& m) {
  bind_module(m);
  bind_layers(m);
  bind_nn_containers(m);
}

}  // namespace ember::python
