// The graph's nodes seen from Python, as torch shows them: `y.grad_fn` is the C++ Node itself, one
// Python object per node, of a class named as the node (type(y.grad_fn).__name__ == "MulBackward0",
// torch._C._functions.AccumulateGrad), with name(), next_functions, the hooks (register_hook for
// a post-hook, register_prehook), a metadata dict that lives as long as the node, and the tensors
// it saved by PyTorch's names: grad_fn._saved_self unpacks one, grad_fn._raw_saved_self is the
// SavedTensor itself (register_hooks packs it anew). A Python autograd Function's node is its ctx
// (custom_function.cpp).
#include <cstdio>

#include "bindings.h"

namespace ember::python {

namespace {

using autograd::Node;

// The Python class of each node kind, made the first time one is seen and kept in _C._functions: a
// subclass of _C.Node that adds nothing, so that a node's object can take it (__class__ assignment).
py::object class_of(const std::string& name) {
  py::module_ functions = py::module_::import("ember._C").attr("_functions");
  if (!py::hasattr(functions, name.c_str())) {
    py::dict namespace_;
    namespace_["__slots__"] = py::tuple();
    namespace_["__module__"] = "torch._C._functions";
    py::object type = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type));
    functions.attr(name.c_str()) = type(name, py::make_tuple(py::module_::import("ember._C").attr("Node")), namespace_);
  }
  return functions.attr(name.c_str());
}

// Python's class name of a node: "AccumulateGrad" for "torch::autograd::AccumulateGrad".
std::string class_name(const Node& node) {
  const std::string name = node.name();
  const size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

}  // namespace

py::tuple next_functions_of(const Node& node) {
  py::tuple out(node.next_edges.size());
  for (size_t i = 0; i < node.next_edges.size(); ++i) {
    const autograd::Edge& edge = node.next_edges[i];
    out[i] = py::make_tuple(python_object_of(edge.node), edge.input_nr);
  }
  return out;
}

namespace {

py::tuple tuple_of(const std::vector<Tensor>& tensors) {
  py::tuple out(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) out[i] = py::cast(tensors[i]);
  return out;
}

// A hook's replacements, checked by PyTorch's rules under the hook's name: None keeps the
// gradients; otherwise a sequence of one value per gradient, where None gives no gradient.
std::vector<Tensor> replacements(const py::object& hook, const py::object& returned,
                                 const std::vector<Tensor>& originals) {
  if (returned.is_none()) return {};
  std::vector<Tensor> out;
  for (py::handle value : returned.cast<py::sequence>())
    out.push_back(value.is_none() ? Tensor() : value.cast<Tensor>());
  autograd::check_hook_results(originals, out, hook_name(hook));
  return out;
}

}  // namespace

std::string hook_name(const py::object& hook) {
  return py::hasattr(hook, "__name__") ? py::str(hook.attr("__name__")).cast<std::string>() : "<unknown>";
}

py::dict metadata_of(Node& node) {
  if (!node.metadata) node.metadata = keep(py::dict());
  return static_cast<py::object*>(node.metadata.get())->cast<py::dict>();
}

RemovableHandle register_python_hook(Node& node, const py::object& hook) {
  auto kept = keep(hook);
  return node.register_hook([kept](const std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs) {
    py::gil_scoped_acquire gil;
    return replacements(*kept, call(kept, tuple_of(grad_inputs), tuple_of(grad_outputs)), grad_inputs);
  });
}

RemovableHandle register_python_prehook(Node& node, const py::object& hook) {
  auto kept = keep(hook);
  return node.register_prehook([kept](const std::vector<Tensor>& grad_outputs) {
    py::gil_scoped_acquire gil;
    return replacements(*kept, call(kept, tuple_of(grad_outputs)), grad_outputs);
  });
}

namespace {

// The SavedTensor a node keeps under `name`, or null.
autograd::SavedTensor* saved_named(Node& node, const std::string& name) {
  for (auto& [saved_name, saved] : node.named_saved_tensors())
    if (saved_name == name) return saved;
  return nullptr;
}

// torch._C._autograd.SavedTensor: one saved tensor of a node, kept with its node.
struct SavedTensorObject {
  std::shared_ptr<Node> node;
  autograd::SavedTensor* saved;
};

}  // namespace

py::object saved_tensor_object(const std::shared_ptr<Node>& node, autograd::SavedTensor* saved) {
  return py::cast(SavedTensorObject{node, saved});
}

namespace {

py::object saved_attribute(const std::shared_ptr<Node>& node, const std::string& attribute) {
  const bool raw = attribute.rfind("_raw_saved_", 0) == 0;
  const std::string name = attribute.substr(raw ? 11 : 7);
  autograd::SavedTensor* saved = saved_named(*node, name);
  if (!saved) throw py::attribute_error("'" + class_name(*node) + "' object has no attribute '" + attribute + "'");
  if (raw) return saved_tensor_object(node, saved);
  Tensor t = saved->unpack_for(node);
  return t.defined() ? py::cast(t) : py::none();
}

}  // namespace

py::object python_object_of(const std::shared_ptr<Node>& node) {
  if (!node) return py::none();
  if (const auto* custom = std::get_if<autograd::CustomFunction>(&node->fn))
    if (py::object ctx = ctx_of(*custom->backward); !ctx.is_none()) return ctx;
  py::object object = py::reinterpret_steal<py::object>(
      py::detail::copyable_holder_caster<Node, std::shared_ptr<Node>>::cast(node, py::return_value_policy::copy, {}));
  py::object node_class = class_of(class_name(*node));
  if (!object.get_type().is(node_class)) object.attr("__class__") = node_class;
  return object;
}

void bind_nodes(py::module_& m) {
  m.def_submodule("_functions", "a class for each kind of node, made when one is first seen");
  py::class_<RemovableHandle>(m, "RemovableHandle").def("remove", &RemovableHandle::remove);
  // dynamic_attr: garbage-collected objects, as the Python subclasses a node's object is given.
  py::class_<Node, std::shared_ptr<Node>>(m, "Node", py::dynamic_attr())
      .def("name", &Node::name)
      .def_property_readonly("next_functions", &next_functions_of)
      .def_property_readonly("metadata", &metadata_of)
      .def_property_readonly("_saved_tensors", [](Node& node) { return tuple_of(node.saved_tensors()); })
      .def("register_hook", &register_python_hook, py::arg("fn"))
      .def("register_prehook", &register_python_prehook, py::arg("fn"))
      .def("__getattr__",
           [](const std::shared_ptr<Node>& node, const std::string& attribute) -> py::object {
             if (attribute.rfind("_saved_", 0) == 0 || attribute.rfind("_raw_saved_", 0) == 0)
               return saved_attribute(node, attribute);
             throw py::attribute_error("'" + class_name(*node) + "' object has no attribute '" + attribute + "'");
           })
      .def_property_readonly("variable",
                             [](const Node& node) {
                               const auto* accumulate = std::get_if<autograd::AccumulateGrad>(&node.fn);
                               if (!accumulate) throw py::attribute_error("only AccumulateGrad has a variable");
                               return Tensor(accumulate->variable.lock());
                             })
      // A node called as a function runs its formula: grad_fn(grad) (PyTorch's Node.__call__).
      .def("__call__",
           [](Node& node, py::args grads) {
             if (grads.size() != node.num_outputs)
               throw py::type_error("expected " + std::to_string(node.num_outputs) + " arguments, got " +
                                    std::to_string(grads.size()) + " instead");
             std::vector<Tensor> given;
             for (py::handle g : grads) given.push_back(g.is_none() ? Tensor() : g.cast<Tensor>());
             std::vector<bool> wanted(node.next_edges.size());
             for (size_t i = 0; i < wanted.size(); ++i) wanted[i] = node.next_edges[i].node != nullptr;
             const std::vector<Tensor> results = node.apply(given, wanted);
             return results.size() == 1 ? py::object(py::cast(results[0])) : py::object(tuple_of(results));
           })
      .def("__repr__", [](py::handle self) {
        char address[32];
        std::snprintf(address, sizeof address, "%p", static_cast<void*>(self.ptr()));
        return "<" + class_name(self.cast<const Node&>()) + " object at " + address + ">";
      });

  py::module_ autograd_module = m.def_submodule("_autograd", "the classes torch._C._autograd holds");
  py::class_<SavedTensorObject>(autograd_module, "SavedTensor")
      .def(py::init([]() -> SavedTensorObject {
        throw std::runtime_error(
            "Trying to create a SavedTensor object from Python is forbidden. To create a SavedTensor object, use "
            "torch.autograd.graph.saved_tensors_hooks");
      }))
      .def(
          "register_hooks",
          [](SavedTensorObject& self, py::function pack, py::function unpack) {
            register_python_hooks(*self.saved, pack, unpack);
          },
          py::arg("pack_hook"), py::arg("unpack_hook"));
}

}  // namespace ember::python
