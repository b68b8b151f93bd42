// torch.autograd.Function from Python, over the engine's custom functions (engine/autograd/
// custom_function.h), as PyTorch's python_function.cpp: Function.apply makes the ctx (an object of
// the Function's own Backward class, which is also the node's Python object: y.grad_fn is ctx),
// runs the user's forward with grad mode off, and hands the outputs, the dirty inputs and what
// ctx.save_for_backward named to the engine. In backward the engine calls the user's backward
// through the ctx. The node keeps the ctx; the ctx holds the node weakly, as PyTorch's.
#include "bindings.h"

namespace ember::python {

namespace {

using autograd::CustomBackward;
using autograd::Node;

// _C._FunctionBase: the C++ part of a ctx.
struct FunctionBase {
  std::weak_ptr<Node> node;
  CustomBackward* backward = nullptr;  // the node's, alive while the node is (it owns the ctx, not the reverse)

  std::shared_ptr<Node> live_node(const char* attribute) const {
    auto alive = node.lock();
    if (!alive)
      throw std::runtime_error(std::string("Attribute '") + attribute +
                               "' is invalid for this instance of _C._FunctionBase. Accessing this attribute directly "
                               "on an instance of autograd.Function is a legacy access pattern that is no longer "
                               "supported. For examples on how to use new-style autograd functions, see "
                               "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function ");
    return alive;
  }
};

struct PythonBackward : CustomBackward {
  std::shared_ptr<py::object> ctx;

  std::vector<Tensor> backward(const std::vector<Tensor>& grad_outputs) override {
    py::gil_scoped_acquire gil;
    py::tuple arguments(grad_outputs.size());
    for (size_t i = 0; i < grad_outputs.size(); ++i) arguments[i] = py::cast(grad_outputs[i]);
    py::object returned = ctx->attr("apply")(*arguments);
    if (!py::isinstance<py::tuple>(returned)) returned = py::make_tuple(returned);
    std::vector<Tensor> grads;
    for (py::handle grad : returned) {
      if (!grad.is_none() && !py::isinstance<Tensor>(grad))
        throw py::type_error("expected Tensor or None (got " + std::string(Py_TYPE(grad.ptr())->tp_name) + ")");
      grads.push_back(grad.is_none() ? Tensor() : grad.cast<Tensor>());
    }
    return grads;
  }
};

std::vector<Tensor> tensors_in(const py::object& sequence) {
  std::vector<Tensor> tensors;
  if (sequence.is_none()) return tensors;
  for (py::handle t : sequence) tensors.push_back(t.is_none() ? Tensor() : t.cast<Tensor>());
  return tensors;
}

// Function.apply(*args): PyTorch's THPFunction_apply and process_outputs.
py::object apply(const py::type& cls, const py::args& args) {
  std::vector<Tensor> inputs;
  auto backward = std::make_shared<PythonBackward>();
  py::tuple needs_input_grad(args.size());
  bool any_requires_grad = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool is_tensor = py::isinstance<Tensor>(args[i]);
    backward->is_tensor_arg.push_back(is_tensor);
    const bool requires_grad = is_tensor && args[i].cast<const Tensor&>().requires_grad();
    if (is_tensor) inputs.push_back(args[i].cast<Tensor>());
    needs_input_grad[i] = py::bool_(requires_grad);
    any_requires_grad = any_requires_grad || requires_grad;
  }
  const bool is_executable = GradMode::is_enabled() && any_requires_grad;
  py::object ctx = cls.attr("_backward_cls")();
  backward->name = py::str(ctx.get_type().attr("__name__"));
  backward->ctx = keep(ctx);
  auto node = autograd::make_custom_node(backward, is_executable ? inputs : std::vector<Tensor>(inputs.size()));
  auto& base = ctx.cast<FunctionBase&>();
  base.node = node;
  base.backward = backward.get();
  ctx.attr("needs_input_grad") = needs_input_grad;
  if (is_executable && autograd::is_anomaly_enabled()) autograd::record_forward_trace(*node, backward->name.c_str());

  py::object returned;
  {
    NoGradGuard forward_runs_without_grad;
    py::tuple forward_args(args.size() + 1);
    forward_args[0] = ctx;
    for (size_t i = 0; i < args.size(); ++i) forward_args[i + 1] = args[i];
    returned = cls.attr("forward")(*forward_args);
  }
  const bool is_tuple = py::isinstance<py::tuple>(returned);
  const py::tuple outputs = is_tuple ? returned.cast<py::tuple>() : py::make_tuple(returned);
  std::vector<Tensor> raw_outputs;
  for (py::handle output : outputs)
    raw_outputs.push_back(py::isinstance<Tensor>(output) ? output.cast<Tensor>() : Tensor());

  const std::vector<Tensor> dirty = tensors_in(py::getattr(ctx, "dirty_tensors", py::none()));
  for (const Tensor& t : dirty) t.impl()->version_counter->bump();  // PyTorch's _mark_dirty
  const std::vector<Tensor> wrapped =
      autograd::wrap_outputs(is_executable ? node : nullptr, inputs, dirty,
                             tensors_in(py::getattr(ctx, "non_differentiable", py::none())), raw_outputs);
  // Dropped once used: a dirty input is now an output whose grad_fn is this node, so its ctx holding
  // it would be a cycle through C++ that Python's collector cannot see.
  ctx.attr("dirty_tensors") = py::none();
  ctx.attr("non_differentiable") = py::none();
  if (is_executable) {
    py::object to_save = py::getattr(ctx, "to_save", py::none());
    if (!to_save.is_none()) {
      size_t position = 0;
      for (py::handle t : to_save) {
        if (!t.is_none() && !py::isinstance<Tensor>(t))
          throw py::type_error("save_for_backward can only save variables, but argument " + std::to_string(position) +
                               " is of type " + Py_TYPE(t.ptr())->tp_name);
        ++position;
      }
      autograd::save_for_backward(*node, *backward, tensors_in(to_save));
    }
    ctx.attr("to_save") = py::none();
  }
  backward->materialize_grads = py::getattr(ctx, "materialize_grads", py::bool_(true)).cast<bool>();

  py::tuple result(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    result[i] = wrapped[i].defined() ? py::cast(wrapped[i]) : py::reinterpret_borrow<py::object>(outputs[i]);
  return is_tuple ? py::object(result) : py::object(result[0]);
}

}  // namespace

py::object ctx_of(const CustomBackward& backward) {
  const auto* python = dynamic_cast<const PythonBackward*>(&backward);
  return python ? *python->ctx : py::none();
}

void bind_custom_function(py::module_& m) {
  py::class_<FunctionBase>(m, "_FunctionBase", py::dynamic_attr())
      .def(py::init<>())
      .def_static("_apply", &apply)  // Function.apply, a classmethod in function.py
      .def_property_readonly("saved_tensors",
                             [](const FunctionBase& self) {
                               auto node = self.live_node("saved_tensors");
                               return py::tuple(py::cast(autograd::saved_tensors(node, *self.backward)));
                             })
      .def_property_readonly("_raw_saved_tensors",
                             [](const FunctionBase& self) {
                               auto node = self.live_node("_raw_saved_tensors");
                               autograd::saved_tensors(node, *self.backward);  // raises once freed
                               py::list raw;
                               for (auto& [name, saved] : node->named_saved_tensors())
                                 raw.append(saved_tensor_object(node, saved));
                               return py::tuple(raw);
                             })
      .def_property_readonly(
          "next_functions",
          [](const FunctionBase& self) { return next_functions_of(*self.live_node("next_functions")); })
      .def_property_readonly("metadata",
                             [](const FunctionBase& self) { return metadata_of(*self.live_node("metadata")); })
      .def("name", [](const FunctionBase& self) { return self.live_node("name")->name(); })
      .def("register_hook",
           [](const FunctionBase& self, const py::object& hook) {
             return register_python_hook(*self.live_node("register_hook"), hook);
           })
      .def("register_prehook", [](const FunctionBase& self, const py::object& hook) {
        return register_python_prehook(*self.live_node("register_prehook"), hook);
      });
}

}  // namespace ember::python
