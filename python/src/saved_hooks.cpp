// Saved-tensor hooks from Python (torch.autograd.graph.saved_tensors_hooks, save_on_cpu,
// disable_saved_tensors_hooks, and grad_fn._raw_saved_self.register_hooks): Python's pack and
// unpack functions as the engine's hooks (engine/autograd/saved_tensors_hooks.h). What pack returns
// may be any Python object; the engine keeps it as such until unpack turns it back into a tensor.
#include "bindings.h"

namespace ember::python {

namespace {

using autograd::PackHook;
using autograd::UnpackHook;

PackHook python_pack(const py::function& pack) {
  return [kept = keep(pack)](const Tensor& t) -> std::any {
    py::gil_scoped_acquire gil;
    return keep(call(kept, t));
  };
}

UnpackHook python_unpack(const py::function& unpack) {
  return [kept = keep(unpack)](const std::any& packed) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object result = call(kept, *std::any_cast<const std::shared_ptr<py::object>&>(packed));
    if (!py::isinstance<Tensor>(result))
      throw py::type_error(
          std::string("Output of saved tensor unpack_hook expected to be a Tensor but got result of type ") +
          Py_TYPE(result.ptr())->tp_name);
    return result.cast<Tensor>();
  };
}

// A C++ guard held from a `with` block's __enter__ to its __exit__.
template <typename Guard>
struct GuardScope {
  std::function<std::unique_ptr<Guard>()> make;
  std::unique_ptr<Guard> guard;
};

template <typename Guard>
void bind_guard_scope(py::module_& m, const char* name) {
  py::class_<GuardScope<Guard>>(m, name)
      .def("__enter__", [](GuardScope<Guard>& scope) { scope.guard = scope.make(); })
      .def("__exit__", [](GuardScope<Guard>& scope, py::args) {
        scope.guard.reset();
        return false;
      });
}

}  // namespace

void register_python_hooks(autograd::SavedTensor& saved, const py::function& pack, const py::function& unpack) {
  saved.register_hooks(python_pack(pack), python_unpack(unpack));
}

void bind_saved_hooks(py::module_& m) {
  using Hooks = autograd::saved_tensors_hooks;
  using Disable = autograd::disable_saved_tensors_hooks;
  bind_guard_scope<Hooks>(m, "_SavedTensorsHooks");
  bind_guard_scope<Disable>(m, "_DisableSavedTensorsHooks");
  m.def(
      "_saved_tensors_hooks",
      [](const py::function& pack, const py::function& unpack) {
        return GuardScope<Hooks>{[pack = python_pack(pack), unpack = python_unpack(unpack)] {
                                   return std::make_unique<Hooks>(pack, unpack);
                                 },
                                 nullptr};
      },
      py::arg("pack_hook"), py::arg("unpack_hook"));
  m.def(
      "_disable_saved_tensors_hooks",
      [](const std::string& message) {
        return GuardScope<Disable>{[message] { return std::make_unique<Disable>(message); }, nullptr};
      },
      py::arg("error_message"));
  m.attr("_autograd").attr("_saved_tensors_hooks_is_enabled") =
      py::cpp_function(&autograd::saved_tensors_hooks_enabled);
}

}  // namespace ember::python
