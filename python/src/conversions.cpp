// Python values to ember's C++ types and back (see bindings.h). Where a conversion can fail, the
// message is the one torch's binding gives for the same mistake.
#include <limits>

#include "bindings.h"

namespace pybind11::detail {

bool type_caster<ember::Scalar>::load(handle source, bool convert) {
  PyObject* object = source.ptr();
  if (PyBool_Check(object)) {
    value = ember::Scalar(object == Py_True);
    return true;
  }
  if (PyFloat_Check(object)) {
    value = ember::Scalar(PyFloat_AS_DOUBLE(object));
    return true;
  }
  if (PyLong_Check(object)) {
    int overflow = 0;
    const long long integer = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow != 0) throw py::value_error("Overflow when unpacking long");
    value = ember::Scalar(static_cast<int64_t>(integer));
    return true;
  }
  if (!convert || object == Py_None) return false;
  if (PyIndex_Check(object)) {  // NumPy integers
    py::int_ integer = py::reinterpret_steal<py::int_>(PyNumber_Index(object));
    if (!integer) throw py::error_already_set();
    return load(integer, false);
  }
  if (PyObject_HasAttrString(object, "__float__") && !py::isinstance<ember::Tensor>(source)) {
    const double number = PyFloat_AsDouble(object);
    if (number == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    value = ember::Scalar(number);
    return true;
  }
  return false;
}

handle type_caster<ember::Scalar>::cast(const ember::Scalar& scalar, return_value_policy, handle) {
  if (scalar.is_bool()) return py::bool_(scalar.to_int() != 0).release();
  if (scalar.is_integral()) return py::int_(scalar.to_int()).release();
  return py::float_(scalar.to_double()).release();
}

}  // namespace pybind11::detail

namespace ember::python {

namespace {
int64_t as_size(py::handle element, const char* function, size_t position) {
  if (PyLong_Check(element.ptr()) && !PyBool_Check(element.ptr())) return element.cast<int64_t>();
  if (PyIndex_Check(element.ptr()) && !PyBool_Check(element.ptr()) && !py::isinstance<Tensor>(element))
    return py::reinterpret_steal<py::int_>(PyNumber_Index(element.ptr())).cast<int64_t>();
  throw py::type_error(std::string(function) + "(): argument 'size' must be tuple of ints, but found element of type " +
                       Py_TYPE(element.ptr())->tp_name + " at pos " + std::to_string(position + 1));
}
}  // namespace

Dims dims_from_object(py::handle object, const char* function) {
  Dims dims;
  if (PyTuple_Check(object.ptr()) || PyList_Check(object.ptr())) {
    size_t position = 0;
    for (py::handle element : object) dims.push_back(as_size(element, function, position++));
    return dims;
  }
  dims.push_back(as_size(object, function, 0));
  return dims;
}

Dims dims_from_args(const py::args& args, const char* function) {
  if (args.size() == 1 && (PyTuple_Check(args[0].ptr()) || PyList_Check(args[0].ptr())))
    return dims_from_object(args[0], function);
  Dims dims;
  for (size_t i = 0; i < args.size(); ++i) dims.push_back(as_size(args[i], function, i));
  return dims;
}

Options options_from(std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
  Options options;
  if (dtype) options.dtype(*dtype);
  if (device) options.device(*device);
  return options.requires_grad(requires_grad);
}

py::object item(const Tensor& t) {
  // torch's Python-side message; the C++ item() says "a Tensor with 2 elements cannot be converted to Scalar".
  if (t.numel() != 1) throw py::value_error("only one element tensors can be converted to Python scalars");
  switch (t.dtype()) {
    case kBool: return py::bool_(t.item<bool>());
    default:
      return is_integral(t.dtype(), false) ? py::object(py::int_(t.item<int64_t>())) : py::float_(t.item<double>());
  }
}

std::vector<indexing::TensorIndex> tensor_indices(py::handle index) {
  std::vector<indexing::TensorIndex> indices;
  auto add = [&](py::handle element) {
    PyObject* object = element.ptr();
    if (PyLong_Check(object) && !PyBool_Check(object)) {
      indices.emplace_back(element.cast<int64_t>());
    } else if (PySlice_Check(object)) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(object, &start, &stop, &step) != 0) throw py::error_already_set();
      // torch's binding refuses a step below one here, as a ValueError.
      if (step <= 0) throw py::value_error("step must be greater than zero");
      indices.emplace_back(indexing::Slice(start, stop, step));
    } else if (object == Py_None) {
      indices.emplace_back(indexing::None);
    } else if (object == Py_Ellipsis) {
      indices.emplace_back(indexing::Ellipsis);
    } else if (PyIndex_Check(object) && !PyBool_Check(object) && !py::isinstance<Tensor>(element)) {
      indices.emplace_back(py::reinterpret_steal<py::int_>(PyNumber_Index(object)).cast<int64_t>());
    } else {
      throw py::index_error(std::string("ember indexes with integers, slices, None and ...; not with ") +
                            Py_TYPE(object)->tp_name + " (indexing with tensors or bools is not in ember)");
    }
  };
  if (PyTuple_Check(index.ptr())) {
    for (py::handle element : index) add(element);
  } else {
    add(index);
  }
  return indices;
}

// torch.typename: "torch.FloatTensor" for a tensor (from libtorch's "CPUFloatType"), else the
// class's name ("int").
std::string torch_typename(py::handle object) {
  if (!py::isinstance<Tensor>(object)) return py::str(py::type::handle_of(object).attr("__name__"));
  std::string type = object.cast<const Tensor&>().toString();  // "CPUFloatType", "CUDAFloatType"
  const bool cuda = type.rfind("CUDA", 0) == 0;
  type = type.substr(cuda ? 4 : 3, type.size() - (cuda ? 4 : 3) - 4);  // "Float"
  return (cuda ? "torch.cuda." : "torch.") + type + "Tensor";
}

}  // namespace ember::python
