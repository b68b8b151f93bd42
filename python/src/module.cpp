// The `ember._C` extension: ember's C++ API seen from Python. This file makes the module: dtypes
// and devices, ember's warnings as Python's UserWarnings, and the process-wide switches (grad
// mode, seeds, threads, memory counters). ember::Error is a std::runtime_error, which pybind11
// raises as RuntimeError with the same text; ember::IndexError is raised as IndexError.
#include "bindings.h"

namespace ember::python {

void bind_dtypes_and_devices(py::module_& m) {
  py::enum_<DType> dtype(m, "dtype");
  dtype.value("float32", kFloat32)
      .value("float64", kFloat64)
      .value("bfloat16", kBFloat16)
      .value("float16", kFloat16)
      .value("int64", kInt64)
      .value("bool", kBool)
      .def_property_readonly("is_floating_point", [](DType d) { return is_floating_point(d); });
  // Printed as PyTorch prints them ("torch.float32"), replacing pybind11's enum texts.
  py::setattr(dtype, "__repr__", py::cpp_function([](DType d) { return to_string(d); }, py::is_method(dtype)));
  py::setattr(dtype, "__str__", py::cpp_function([](DType d) { return to_string(d); }, py::is_method(dtype)));

  py::class_<Device>(m, "device")
      .def(py::init<const std::string&>(), py::arg("type"))
      .def(py::init([](const std::string& type, int index) { return Device(Device(type).type, index); }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const Device& d) { return d.type_name(); })
      .def_property_readonly("index",
                             [](const Device& d) { return d.is_cpu() ? py::none() : py::object(py::int_(d.index)); })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             return d.is_cpu() ? std::string("device(type='cpu')")
                               : str_cat("device(type='", d.type_name(), "', index=", static_cast<int>(d.index), ")");
           })
      .def(
          "__eq__", [](const Device& a, const Device& b) { return a == b; }, py::is_operator())
      .def("__hash__", [](const Device& d) { return static_cast<int>(d.type) * 256 + d.index; });
  py::implicitly_convertible<std::string, Device>();
}

namespace {

// ember's warnings, raised as Python warnings at the line that called the op. Under a filter that
// turns warnings into errors, the Python exception propagates out of the op like an ember::Error.
void warn_in_python(const std::string& message) {
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}

void bind_switches(py::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled, py::arg("enabled"));
  m.def("is_inference_mode_enabled", &InferenceMode::is_enabled);
  m.def(
      "manual_seed", [](uint64_t seed) { manual_seed(seed); }, py::arg("seed"));
  m.def("seed", [] { return seed(); });
  m.def("initial_seed", [] { return initial_seed(); });
  m.def("set_num_threads", &set_num_threads, py::arg("n"));
  m.def("get_num_threads", &get_num_threads);
  m.def("set_warn_always", &set_warn_always, py::arg("b"));
  m.def("is_warn_always_enabled", &is_warn_always_enabled);
  // ember's allocator counters (engine/core/allocator.h), for the CPU as for CUDA.
  m.def(
      "memory_allocated", [](Device device) { return memory_allocated(device); }, py::arg("device") = kCPU);
  m.def(
      "max_memory_allocated", [](Device device) { return max_memory_allocated(device); }, py::arg("device") = kCPU);
  m.def(
      "reset_peak_memory_stats", [](Device device) { reset_peak_memory_stats(device); }, py::arg("device") = kCPU);
  m.def(
      "memory_reserved", [](Device device) { return memory_reserved(device); }, py::arg("device") = kCPU);
  m.def("empty_cache", &empty_cache);
  m.def("_cuda_is_built", &cuda::is_built);
  m.def("_cuda_is_available", &cuda::is_available);
  m.def("_cuda_device_count", &cuda::device_count);
  m.def("_cuda_synchronize", &cuda::synchronize);
}

}  // namespace

}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "ember's C++ engine, bound for Python; import `ember` rather than this module";
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const ember::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    }
  });
  ember::set_warning_handler(warn_in_python);
  bind_dtypes_and_devices(m);
  py::class_<ember::Tensor> tensor(m, "Tensor");
  bind_tensor(m, tensor);
  bind_tensor_operators(tensor);
  bind_numpy(m, tensor);
  bind_functions(m);
  bind_autograd(m);
  bind_nn(m);
  bind_optim(m);
  bind_profiler(m);
  bind_switches(m);
}
