// Autograd seen from Python: the engine's entry points (torch.autograd.backward and grad, which the
// Python package wraps as torch/autograd/__init__.py does), the modes as the C++ guards entered and
// left by Python's `with` (inference_mode, autocast, detect_anomaly; no_grad is grad mode's switch,
// in the Python package, as torch writes it), and the queries torch has for them. The graph's
// nodes are nodes.cpp; custom functions custom_function.cpp; saved-tensor hooks saved_hooks.cpp.
#include "bindings.h"

namespace ember::python {

namespace {

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
using DetectAnomalyScope = Scope<autograd::DetectAnomalyGuard, bool>;

template <typename S>
void bind_scope(py::class_<S>& scope) {
  scope.def("__enter__", &S::enter).def("__exit__", [](S& s, py::args) {
    s.exit();
    return false;
  });
}

std::vector<Tensor> tensors_of(const py::object& sequence) {
  std::vector<Tensor> tensors;
  for (py::handle t : sequence) tensors.push_back(t.is_none() ? Tensor() : t.cast<Tensor>());
  return tensors;
}

// Python's traceback of the current call, kept with each node made in anomaly mode.
std::string python_stack() {
  py::gil_scoped_acquire gil;
  py::object lines = py::module_::import("traceback").attr("format_stack")();
  return py::str("").attr("join")(lines).cast<std::string>();
}

// torch.autocast's state by PyTorch 1.13's names (torch/csrc/autograd/init.cpp): what
// python/ember/amp.py's autocast sets on entering and restores on leaving, as torch's does.
bool checked_bool(const py::handle& value) {
  if (!PyBool_Check(value.ptr()))
    throw py::type_error("enabled must be a bool (got " + std::string(Py_TYPE(value.ptr())->tp_name) + ")");
  return value.cast<bool>();
}

void bind_autocast_state(py::module_& m) {
  m.def("is_autocast_enabled", [] { return autocast::is_enabled(); });
  m.def("set_autocast_enabled", [](const py::handle& enabled) { autocast::set_enabled(checked_bool(enabled)); });
  m.def("is_autocast_cpu_enabled", &autocast::is_cpu_enabled);
  m.def("set_autocast_cpu_enabled",
        [](const py::handle& enabled) { autocast::set_cpu_enabled(checked_bool(enabled)); });
  m.def("get_autocast_gpu_dtype", &autocast::get_autocast_gpu_dtype);
  m.def("get_autocast_cpu_dtype", &autocast::get_autocast_cpu_dtype);
  m.def("set_autocast_gpu_dtype", &autocast::set_autocast_gpu_dtype);
  m.def("set_autocast_cpu_dtype", &autocast::set_autocast_cpu_dtype);
  m.def("is_autocast_cache_enabled", &autocast::is_autocast_cache_enabled);
  m.def("set_autocast_cache_enabled",
        [](const py::handle& enabled) { autocast::set_autocast_cache_enabled(checked_bool(enabled)); });
  m.def("clear_autocast_cache", &autocast::clear_cache);
  m.def("autocast_increment_nesting", &autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &autocast::decrement_nesting);
}

void bind_modes(py::module_& m) {
  py::class_<InferenceModeScope> inference_mode(m, "_InferenceMode");
  inference_mode.def(py::init<bool>(), py::arg("mode") = true);
  bind_scope(inference_mode);

  bind_autocast_state(m);

  py::class_<DetectAnomalyScope> detect_anomaly(m, "_DetectAnomaly");
  detect_anomaly.def(py::init<bool>(), py::arg("check_nan") = true);
  bind_scope(detect_anomaly);
  m.def("_set_detect_anomaly", &autograd::set_detect_anomaly, py::arg("mode"), py::arg("check_nan") = true);
  m.def("is_anomaly_enabled", &autograd::is_anomaly_enabled);
  m.def("is_anomaly_check_nan_enabled", [] { return autograd::detail::anomaly_checks_nan.load(); });
  autograd::set_forward_stack_capture(python_stack);
}

// A Python function of tensors as gradcheck's DifferentiableFunction: it returns a tensor or a
// tuple of tensors.
autograd::DifferentiableFunction differentiable(const py::function& f) {
  return [kept = keep(f)](const std::vector<Tensor>& inputs) {
    py::gil_scoped_acquire gil;
    py::object returned = (*kept)(py::cast(inputs));
    if (py::isinstance<Tensor>(returned)) return std::vector<Tensor>{returned.cast<Tensor>()};
    std::vector<Tensor> outputs;
    for (py::handle output : returned)
      if (py::isinstance<Tensor>(output)) outputs.push_back(output.cast<Tensor>());
    return outputs;
  };
}

void bind_gradcheck(py::module_& m) {
  auto options = [](double eps, double atol, double rtol, bool raise_exception, double nondet_tol,
                    bool check_undefined_grad, bool fast_mode) {
    return autograd::GradcheckOptions{eps, atol, rtol, nondet_tol, raise_exception, check_undefined_grad, fast_mode};
  };
  m.def("_gradcheck", [options](const py::function& f, const std::vector<Tensor>& inputs, double eps, double atol,
                                double rtol, bool raise_exception, double nondet_tol, bool check_undefined_grad,
                                bool fast_mode) {
    return autograd::gradcheck(differentiable(f), inputs,
                               options(eps, atol, rtol, raise_exception, nondet_tol, check_undefined_grad, fast_mode));
  });
  m.def("_gradgradcheck",
        [options](const py::function& f, const std::vector<Tensor>& inputs, const std::vector<Tensor>& grad_outputs,
                  double eps, double atol, double rtol, bool raise_exception, double nondet_tol,
                  bool check_undefined_grad, bool fast_mode) {
          return autograd::gradgradcheck(
              differentiable(f), inputs, grad_outputs,
              options(eps, atol, rtol, raise_exception, nondet_tol, check_undefined_grad, fast_mode));
        });
  m.def("_numerical_jacobians", [](const py::function& f, const std::vector<Tensor>& inputs, double eps) {
    return autograd::numerical_jacobians(differentiable(f), inputs, eps);
  });
  m.def("_analytical_jacobians", [](const std::vector<Tensor>& inputs, const Tensor& output, double nondet_tol) {
    const autograd::AnalyticalJacobians result = autograd::analytical_jacobians(inputs, output, nondet_tol);
    return py::make_tuple(result.jacobians, result.reentrant);
  });
  py::register_exception<autograd::GradcheckError>(m, "GradcheckError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const autograd::GradcheckFunctionError& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace

void bind_autograd(py::module_& m) {
  bind_gradcheck(m);
  bind_modes(m);
  // The engine, as Variable._execution_engine.run_backward and torch.autograd.grad reach it.
  m.def(
      "_backward",
      [](const py::object& tensors, const py::object& grad_tensors, std::optional<bool> retain_graph, bool create_graph,
         const py::object& inputs) {
        autograd::backward(tensors_of(tensors), tensors_of(grad_tensors), retain_graph, create_graph,
                           tensors_of(inputs));
      },
      py::arg("tensors"), py::arg("grad_tensors"), py::arg("retain_graph"), py::arg("create_graph"), py::arg("inputs"));
  m.def(
      "_grad",
      [](const py::object& outputs, const py::object& inputs, const py::object& grad_outputs,
         std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
        return py::tuple(py::cast(autograd::grad(tensors_of(outputs), tensors_of(inputs), tensors_of(grad_outputs),
                                                 retain_graph, create_graph, allow_unused)));
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs"), py::arg("retain_graph"), py::arg("create_graph"),
      py::arg("allow_unused"));
  m.def(
      "saved_tensors_in_graph",
      [](const Tensor& root) {
        py::list out;
        for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(root))
          out.append(py::make_tuple(saved.node, saved.tensor));
        return out;
      },
      py::arg("root"));
  m.def(
      "is_inference", [](const Tensor& t) { return t.is_inference(); }, py::arg("input"));

  // torch._C._WeakTensorRef: whether a tensor is still alive, without keeping it so.
  struct WeakTensorRef {
    std::weak_ptr<TensorImpl> impl;
  };
  py::class_<WeakTensorRef>(m, "_WeakTensorRef")
      .def(py::init([](const Tensor& t) { return WeakTensorRef{t.impl_ptr()}; }))
      .def("expired", [](const WeakTensorRef& ref) { return ref.impl.expired(); });
}

}  // namespace ember::python
