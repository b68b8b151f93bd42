// Autograd seen from Python: a tensor's grad_fn is the C++ Node itself, so `y.grad_fn.name()`,
// `y.grad_fn.next_functions` and a leaf's `AccumulateGrad.variable` walk the very graph backward
// runs. The modes are the C++ guards, entered and left by Python's `with`: inference_mode and
// autocast hold an InferenceMode / AutocastGuard for the block (no_grad is grad mode's switch,
// in the Python package, as torch writes it).
#include <cstdio>

#include "bindings.h"

namespace ember::python {

namespace {

using autograd::Node;

// Python's class name of a node: "AccumulateGrad" for "torch::autograd::AccumulateGrad".
std::string class_name(const Node& node) {
  const std::string name = node.name();
  const size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

py::tuple next_functions(const Node& node) {
  py::tuple out(node.next_edges.size());
  for (size_t i = 0; i < node.next_edges.size(); ++i) {
    const autograd::Edge& edge = node.next_edges[i];
    out[i] = py::make_tuple(edge.node ? py::cast(edge.node) : py::none(), edge.input_nr);
  }
  return out;
}

// A C++ guard that lives from __enter__ to __exit__ of a `with` block.
template <typename Guard, typename... Arguments>
struct Scope {
  explicit Scope(Arguments... arguments) : arguments(arguments...) {}
  std::tuple<Arguments...> arguments;
  std::optional<Guard> guard;
  void enter() {
    if (guard) throw std::runtime_error("this context manager is already entered");
    std::apply([this](const auto&... a) { guard.emplace(a...); }, arguments);
  }
  void exit() { guard.reset(); }
};
using InferenceModeScope = Scope<InferenceMode, bool>;
using AutocastScope = Scope<AutocastGuard, DeviceType, std::optional<DType>, bool, bool>;

template <typename S>
void bind_scope(py::class_<S>& scope) {
  scope.def("__enter__", &S::enter).def("__exit__", [](S& s, py::args) {
    s.exit();
    return false;
  });
}

}  // namespace

void bind_autograd(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", &next_functions)
      .def_property_readonly("_saved_tensors", [](Node& node) { return node.saved_tensors(); })
      .def_property_readonly("variable",
                             [](const Node& node) {
                               const auto* accumulate = std::get_if<autograd::AccumulateGrad>(&node.fn);
                               if (!accumulate) throw py::attribute_error("only AccumulateGrad has a variable");
                               return Tensor(accumulate->variable);
                             })
      .def("__repr__", [](py::handle self) {
        char address[32];
        std::snprintf(address, sizeof address, "%p", static_cast<void*>(self.ptr()));
        return "<" + class_name(self.cast<const Node&>()) + " object at " + address + ">";
      });
  m.def(
      "saved_tensors_in_graph",
      [](const Tensor& root) {
        py::list out;
        for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(root))
          out.append(py::make_tuple(saved.node, saved.tensor));
        return out;
      },
      py::arg("root"));

  py::class_<InferenceModeScope> inference_mode(m, "_InferenceMode");
  inference_mode.def(py::init<bool>(), py::arg("mode") = true);
  bind_scope(inference_mode);

  py::class_<AutocastScope> autocast(m, "_Autocast");
  autocast.def(
      py::init([](const std::string& device_type, std::optional<DType> dtype, bool enabled, bool cache_enabled) {
        return std::make_unique<AutocastScope>(Device(device_type).type, dtype, enabled, cache_enabled);
      }),
      py::arg("device_type"), py::arg("dtype") = py::none(), py::arg("enabled") = true,
      py::arg("cache_enabled") = true);
  bind_scope(autocast);
  m.def(
      "is_autocast_enabled",
      [](const std::string& device_type) { return autocast::is_enabled(Device(device_type).type); },
      py::arg("device_type") = "cpu");
  m.def(
      "get_autocast_dtype",
      [](const std::string& device_type) { return autocast::get_dtype(Device(device_type).type); },
      py::arg("device_type") = "cpu");
}

}  // namespace ember::python
