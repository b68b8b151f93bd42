// The `ember._C` extension: ember's C++ API seen from Python. This file makes the module: dtypes
// and devices, ember's warnings as Python's UserWarnings, and the process-wide switches (grad
// mode, seeds, threads, memory counters). ember::Error is a std::runtime_error, which pybind11
// raises as RuntimeError with the same text; ember::IndexError is raised as IndexError, and
// ember::TypeError as TypeError.
#include <map>

#include "bindings.h"

namespace ember::python {

namespace {
std::map<DType, PyObject*>& dtype_objects() {
  static std::map<DType, PyObject*> objects;  // their references kept for the process, as torch's dtypes
  return objects;
}
}  // namespace

PyObject* dtype_object(DType dtype) {
  const auto found = dtype_objects().find(dtype);
  return found == dtype_objects().end() ? nullptr : found->second;
}

void bind_dtypes_and_devices(py::module_& m) {
  py::enum_<DType> dtype(m, "dtype");
  dtype.value("float32", kFloat32)
      .value("float64", kFloat64)
      .value("bfloat16", kBFloat16)
      .value("float16", kFloat16)
      .value("int64", kInt64)
      .value("bool", kBool)
      .value("uint8", kUInt8)
      .value("int8", kInt8)
      .value("int16", kInt16)
      .value("int32", kInt32)
      .def_property_readonly("is_floating_point", [](DType d) { return is_floating_point(d); })
      .def_property_readonly("is_complex", [](DType) { return false; })
      .def_property_readonly("is_signed", [](DType d) { return d != kUInt8 && d != kBool; });
  // Printed as PyTorch prints them ("torch.float32"), replacing pybind11's enum texts.
  py::setattr(dtype, "__repr__", py::cpp_function([](DType d) { return to_string(d); }, py::is_method(dtype)));
  py::setattr(dtype, "__str__", py::cpp_function([](DType d) { return to_string(d); }, py::is_method(dtype)));
  for (auto [name, value] : dtype.attr("__members__").cast<py::dict>())
    dtype_objects()[value.cast<DType>()] = value.inc_ref().ptr();

  py::enum_<MemoryFormat>(m, "memory_format")
      .value("contiguous_format", MemoryFormat::Contiguous)
      .value("preserve_format", MemoryFormat::Preserve)
      .value("channels_last", MemoryFormat::ChannelsLast)
      .export_values();  // torch.contiguous_format, torch.channels_last, torch.preserve_format

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
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) == 0) return;
  // A filter made the warning an error. While another error is already on its way out (anomaly mode
  // warns as a node fails), PyTorch prints the warning to sys.stderr rather than replace that error.
  if (std::current_exception()) {
    PyErr_Print();
    return;
  }
  throw py::error_already_set();
}

void bind_switches(py::module_& m) {
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("get_default_dtype", &get_default_dtype);
  m.def("set_default_dtype", &set_default_dtype, py::arg("d"));
  m.def("_set_grad_enabled", &GradMode::set_enabled, py::arg("enabled"));
  m.def("is_inference_mode_enabled", &InferenceMode::is_enabled);
  m.def(
      "manual_seed", [](uint64_t seed) { manual_seed(seed); }, py::arg("seed"));
  m.def("seed", [] { return seed(); });
  m.def("initial_seed", [] { return initial_seed(); });
  // torch.get_rng_state / set_rng_state: the default generator's whole state, to replay from there.
  // PyTorch's is a uint8 tensor of that state's bytes; ember's is the state itself (ember has no uint8).
  py::class_<GeneratorState>(m, "GeneratorState");
  m.def("get_rng_state", [] { return default_generator().get_state(); });
  m.def(
      "set_rng_state", [](const GeneratorState& state) { default_generator().set_state(state); }, py::arg("new_state"));
  m.def("set_num_threads", &set_num_threads, py::arg("n"));
  m.def("get_num_threads", &get_num_threads);
  m.def("set_warn_always", &set_warn_always, py::arg("b"));
  m.def("typename", &torch_typename, py::arg("obj"));
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
  // PyTorch's build flags, answered for ember: it calls oneDNN for its products, but has no MKL-DNN
  // tensor layout (to_mkldnn), which is what PyTorch's has_mkldnn guards; nor LAPACK.
  m.attr("has_mkldnn") = false;
  m.attr("has_lapack") = false;
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
    } catch (const ember::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
  ember::set_warning_handler(warn_in_python);
  bind_dtypes_and_devices(m);
  TensorClass tensor(m, "Tensor", py::dynamic_attr());  // a tensor takes attributes, as torch's do
  bind_python_object(m, tensor);
  bind_tensor(m, tensor);
  bind_tensor_operators(tensor);
  bind_views(m, tensor);
  bind_math(m, tensor);
  bind_numpy(m, tensor);
  bind_functions(m);
  bind_autograd(m);
  bind_nodes(m);
  bind_custom_function(m);
  bind_saved_hooks(m);
  bind_nn(m);
  bind_optim(m);
  bind_profiler(m);
  bind_dispatch_trace(m);
  bind_compile(m);
  bind_switches(m);
}
