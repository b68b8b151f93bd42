// NumPy interop, as torch's (torch/csrc/utils/tensor_numpy.cpp): `t.numpy()` is an array over the
// tensor's memory and `ember.from_numpy(a)` a tensor over the array's, so a write through either
// shows in the other; a float64 array stays float64 (the chapter's NumPy dtype error). NumPy is
// imported when first used, so ember imports and runs without it. The checks are the conversion's
// own, with torch's messages.
#include <pybind11/numpy.h>

#include "bindings.h"

namespace ember::python {

namespace {

// NumPy's dtype for an ember dtype, or torch's refusal.
py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case kFloat32: return py::dtype::of<float>();
    case kFloat64: return py::dtype::of<double>();
    case kInt64: return py::dtype::of<int64_t>();
    case kInt32: return py::dtype::of<int32_t>();
    case kInt16: return py::dtype::of<int16_t>();
    case kInt8: return py::dtype::of<int8_t>();
    case kUInt8: return py::dtype::of<uint8_t>();
    case kBool: return py::dtype::of<bool>();
    case kFloat16: return py::dtype("float16");
    default: throw py::type_error(std::string("Got unsupported ScalarType ") + scalar_type_name(dtype));
  }
}

DType ember_dtype(const py::array& array) {
  const py::dtype dtype = array.dtype();
  if (dtype.kind() == 'f' && dtype.itemsize() == 4) return kFloat32;
  if (dtype.kind() == 'f' && dtype.itemsize() == 8) return kFloat64;
  if (dtype.kind() == 'f' && dtype.itemsize() == 2) return kFloat16;
  if (dtype.kind() == 'i' && dtype.itemsize() == 8) return kInt64;
  if (dtype.kind() == 'i' && dtype.itemsize() == 4) return kInt32;
  if (dtype.kind() == 'i' && dtype.itemsize() == 2) return kInt16;
  if (dtype.kind() == 'i' && dtype.itemsize() == 1) return kInt8;
  if (dtype.kind() == 'u' && dtype.itemsize() == 1) return kUInt8;
  if (dtype.kind() == 'b') return kBool;
  throw py::type_error(
      "can't convert np.ndarray of type numpy." + dtype.attr("type").attr("__name__").cast<std::string>() +
      ". The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.");
}

py::array to_numpy(const Tensor& t) {
  if (!t.device().is_cpu())
    throw py::type_error("can't convert " + t.device().str() +
                         " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  // As PyTorch's: refused only while grad mode is on (under no_grad nothing could be recorded).
  if (t.requires_grad() && GradMode::is_enabled())
    throw std::runtime_error("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  const py::dtype dtype = numpy_dtype(t.dtype());
  std::vector<py::ssize_t> shape, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    shape.push_back(t.size(d));
    strides.push_back(t.stride(d) * t.element_size());
  }
  // The array's base owns a handle to the tensor, so the bytes outlive the tensor's Python object.
  py::capsule owner(new Tensor(t), [](void* handle) { delete static_cast<Tensor*>(handle); });
  return py::array(dtype, shape, strides, t.raw_data(), owner);
}

}  // namespace

Tensor from_numpy(py::handle object) {
  if (!py::isinstance<py::array>(object))
    throw py::type_error(std::string("expected np.ndarray (got ") + Py_TYPE(object.ptr())->tp_name + ")");
  py::array array = py::reinterpret_borrow<py::array>(object);
  const DType dtype = ember_dtype(array);
  if (!array.dtype().attr("isnative").cast<bool>())
    throw py::value_error("given numpy array has byte order different from the native byte order. Conversion "
                          "between byte orders is currently not supported.");
  Dims sizes, strides;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    if (array.strides(d) < 0)
      throw py::value_error(
          "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
          "currently supported. (You can probably work around this by making a copy of your array  with "
          "array.copy().) ");
    if (array.strides(d) % array.itemsize() != 0)
      throw py::value_error(
          "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate "
          "the memory.");
    sizes.push_back(array.shape(d));
    strides.push_back(array.strides(d) / array.itemsize());
  }
  if (!array.writeable())
    warn_once(
        "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
        "writing to this tensor will result in undefined behavior. You may want to copy the array to protect its "
        "data or make it writable before converting it to a tensor. This type of warning will be suppressed for the "
        "rest of this program.");
  // The tensor keeps the array alive; its last handle gives the reference back, holding the GIL.
  PyObject* keep_alive = array.inc_ref().ptr();
  return from_blob(
      const_cast<void*>(array.data()), sizes, strides,
      [keep_alive](void*) {
        if (!Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        Py_DECREF(keep_alive);
      },
      dtype);
}

void bind_numpy(py::module_& m, TensorClass& tensor) {
  tensor.def("numpy", &to_numpy);
  m.def("from_numpy", &from_numpy, py::arg("ndarray"));
}

}  // namespace ember::python
