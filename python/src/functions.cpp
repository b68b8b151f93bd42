// The functions of the `ember` module, named as torch's: factories (`ember.randn(4, 8)`,
// `ember.tensor([[1., 2.]])`), the ops of ops.h as functions (`ember.matmul`, `ember.cat`) and those
// of torch.nn.functional. Keyword arguments are torch's; each function is one call into ember.
#include "bindings.h"

namespace ember::python {

namespace {

// What `ember.tensor(data)` collects from nested Python sequences of numbers: the sizes, one
// value per element, and torch's dtype inference (any float: float32; else any int: int64; else bool).
struct NestedNumbers {
  Dims sizes;
  int64_t number_depth = -1;  // the nesting depth of the numbers, once one was seen
  std::vector<double> floats;
  std::vector<int64_t> integers;
  bool any_float = false, any_integer = false;

  void add_number(py::handle number, int64_t depth) {
    if (number_depth == -1) number_depth = depth;
    if (depth != number_depth || depth != sizes.size())
      throw py::value_error("expected sequence of length " + std::to_string(sizes[depth]) + " at dim " +
                            std::to_string(depth) + " (got a number)");
    PyObject* object = number.ptr();
    if (PyBool_Check(object)) {
      floats.push_back(object == Py_True);
      integers.push_back(object == Py_True);
    } else if (PyLong_Check(object) || (PyIndex_Check(object) && !PyFloat_Check(object))) {
      const int64_t value = py::reinterpret_steal<py::int_>(PyNumber_Index(object)).cast<int64_t>();
      floats.push_back(static_cast<double>(value));
      integers.push_back(value);
      any_integer = true;
    } else {
      const double value = PyFloat_AsDouble(object);
      if (value == -1.0 && PyErr_Occurred()) throw py::error_already_set();
      floats.push_back(value);
      integers.push_back(static_cast<int64_t>(value));
      any_float = true;
    }
  }

  void add(py::handle data, int64_t depth) {
    PyObject* object = data.ptr();
    if (py::isinstance<Tensor>(data)) {  // a one-element tensor inside a list counts as its number
      add_number(item(data.cast<const Tensor&>()), depth);
    } else if (PyList_Check(object) || PyTuple_Check(object)) {
      const int64_t length = static_cast<int64_t>(py::len(data));
      if (depth == sizes.size() && number_depth == -1) sizes.push_back(length);
      else if (depth >= sizes.size() || sizes[depth] != length)
        throw py::value_error("expected sequence of length " +
                              (depth < sizes.size() ? std::to_string(sizes[depth]) : std::string("0")) + " at dim " +
                              std::to_string(depth) + " (got " + std::to_string(length) + ")");
      for (py::handle element : data) add(element, depth + 1);
    } else if (PyFloat_Check(object) || PyLong_Check(object) || PyIndex_Check(object) ||
               PyObject_HasAttrString(object, "__float__")) {
      add_number(data, depth);
    } else {
      throw py::type_error(std::string("Could not infer dtype of ") + Py_TYPE(object)->tp_name);
    }
  }
};

// A copy of a tensor's values made by ember.tensor(): detached, contiguous, with the dtype, device
// and requires_grad asked for.
Tensor finish_copy(Tensor copy, std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
  if (dtype) copy = copy.to(*dtype);
  if (device) copy = copy.to(*device);
  return requires_grad ? copy.requires_grad_() : copy;
}

Tensor tensor_from_data(py::handle data, std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
  if (py::isinstance<Tensor>(data)) {
    warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
         "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).");
    return finish_copy(data.cast<const Tensor&>().detach().clone(MemoryFormat::Contiguous), dtype, device,
                       requires_grad);
  }
  if (py::hasattr(data, "__array_interface__"))  // a NumPy array: its values and its dtype, copied
    return finish_copy(from_numpy(data).clone(MemoryFormat::Contiguous), dtype, device, requires_grad);
  const Options options = options_from(dtype, device, requires_grad);
  NestedNumbers numbers;
  numbers.add(data, 0);
  if (numbers.any_float) return tensor(numbers.floats, numbers.sizes, options);
  if (numbers.any_integer) return from_vector(numbers.integers, numbers.sizes, options);
  if (numbers.floats.empty()) return tensor(std::vector<double>(), numbers.sizes, options);  // tensor([]): float32
  return from_vector(std::vector<bool>(numbers.integers.begin(), numbers.integers.end()), numbers.sizes, options);
}

// torch's reduction enum (torch.nn._reduction.get_enum, which names the ValueError for a bad string).
Reduction reduction_from(int64_t reduction) {
  if (reduction == 0) return Reduction::None;
  if (reduction == 1) return Reduction::Mean;
  if (reduction == 2) return Reduction::Sum;
  throw py::value_error(std::to_string(reduction) + " is not a valid value for reduction");
}

// The keyword arguments every factory takes: after *size they are keyword-only already.
#define EMBER_FACTORY_KEYWORDS \
  py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false
#define EMBER_KEYWORDS_ONLY py::kw_only(), EMBER_FACTORY_KEYWORDS

void bind_factories(py::module_& m) {
  using OptDType = std::optional<DType>;
  using OptDevice = std::optional<Device>;
  m.def(
      "zeros",
      [](py::args size, OptDType dtype, OptDevice device, bool requires_grad) {
        return zeros(dims_from_args(size, "zeros"), options_from(dtype, device, requires_grad));
      },
      EMBER_FACTORY_KEYWORDS);
  m.def(
      "ones",
      [](py::args size, OptDType dtype, OptDevice device, bool requires_grad) {
        return ones(dims_from_args(size, "ones"), options_from(dtype, device, requires_grad));
      },
      EMBER_FACTORY_KEYWORDS);
  m.def(
      "empty",
      [](py::args size, OptDType dtype, OptDevice device, bool requires_grad) {
        return empty(dims_from_args(size, "empty"), options_from(dtype, device, requires_grad));
      },
      EMBER_FACTORY_KEYWORDS);
  m.def(
      "rand",
      [](py::args size, OptDType dtype, OptDevice device, bool requires_grad) {
        return rand(dims_from_args(size, "rand"), options_from(dtype, device, requires_grad));
      },
      EMBER_FACTORY_KEYWORDS);
  m.def(
      "randn",
      [](py::args size, OptDType dtype, OptDevice device, bool requires_grad) {
        return randn(dims_from_args(size, "randn"), options_from(dtype, device, requires_grad));
      },
      EMBER_FACTORY_KEYWORDS);
  m.def(
      "full",
      [](py::object size, Scalar value, OptDType dtype, OptDevice device, bool requires_grad) {
        return full(dims_from_object(size, "full"), value, options_from(dtype, device, requires_grad));
      },
      py::arg("size"), py::arg("fill_value"), EMBER_KEYWORDS_ONLY);
  m.def(
      "arange",
      [](Scalar end, OptDType dtype, OptDevice device, bool requires_grad) {
        return arange(end, options_from(dtype, device, requires_grad));
      },
      py::arg("end"), EMBER_KEYWORDS_ONLY);
  m.def(
      "arange",
      [](Scalar start, Scalar end, Scalar step, OptDType dtype, OptDevice device, bool requires_grad) {
        return arange(start, end, step, options_from(dtype, device, requires_grad));
      },
      py::arg("start"), py::arg("end"), py::arg("step") = 1, EMBER_KEYWORDS_ONLY);
  m.def(
      "eye",
      [](int64_t n, std::optional<int64_t> m, OptDType dtype, OptDevice device, bool requires_grad) {
        return eye(n, m.value_or(n), options_from(dtype, device, requires_grad));
      },
      py::arg("n"), py::arg("m") = py::none(), EMBER_KEYWORDS_ONLY);
  m.def(
      "randint",
      [](int64_t low, int64_t high, py::object size, OptDType dtype, OptDevice device, bool requires_grad) {
        return randint(low, high, dims_from_object(size, "randint"), options_from(dtype, device, requires_grad));
      },
      py::arg("low"), py::arg("high"), py::arg("size"), EMBER_KEYWORDS_ONLY);
  m.def(
      "randint",
      [](int64_t high, py::object size, OptDType dtype, OptDevice device, bool requires_grad) {
        return randint(high, dims_from_object(size, "randint"), options_from(dtype, device, requires_grad));
      },
      py::arg("high"), py::arg("size"), EMBER_KEYWORDS_ONLY);
  m.def(
      "randperm",
      [](int64_t n, OptDType dtype, OptDevice device, bool requires_grad) {
        return randperm(n, options_from(dtype, device, requires_grad));
      },
      py::arg("n"), EMBER_KEYWORDS_ONLY);
  m.def("tensor", &tensor_from_data, py::arg("data"), EMBER_KEYWORDS_ONLY);
  m.def(
      "empty_strided",
      [](py::object size, py::object stride, OptDType dtype, OptDevice device, bool requires_grad) {
        return empty_strided(dims_from_object(size, "empty_strided"), dims_from_object(stride, "empty_strided"),
                             options_from(dtype, device, requires_grad));
      },
      py::arg("size"), py::arg("stride"), EMBER_KEYWORDS_ONLY);
  m.def(
      "bernoulli", [](const Tensor& p) { return bernoulli(p); }, py::arg("input"));
}
#undef EMBER_KEYWORDS_ONLY

void bind_ops(py::module_& m) {
  m.def("matmul", &matmul, py::arg("input"), py::arg("other"));
  m.def("mm", &mm, py::arg("input"), py::arg("mat2"));
  m.def("bmm", &bmm, py::arg("input"), py::arg("mat2"));
  m.def("addmm", &addmm, py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
        py::arg("alpha") = 1);
  m.def(
      "pow", [](const Tensor& a, Scalar exponent) { return pow(a, exponent); }, py::arg("input"), py::arg("exponent"));
  m.def(
      "sum",
      [](const Tensor& t, py::object dim, bool keepdim) {
        return dim.is_none() ? sum(t) : sum(t, dims_from_object(dim, "sum"), keepdim);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def(
      "mean",
      [](const Tensor& t, py::object dim, bool keepdim) {
        return dim.is_none() ? mean(t) : mean(t, dims_from_object(dim, "mean"), keepdim);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def(
      "max", [](const Tensor& t) { return max(t); }, py::arg("input"));
  m.def(
      "min", [](const Tensor& t) { return min(t); }, py::arg("input"));
  m.def("argmax", &argmax, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def("softmax", &softmax, py::arg("input"), py::arg("dim"));
  m.def("log_softmax", &log_softmax, py::arg("input"), py::arg("dim"));
  m.def("where", &where, py::arg("condition"), py::arg("input"), py::arg("other"));
  m.def("cat", &cat, py::arg("tensors"), py::arg("dim") = 0);
  m.def("stack", &stack, py::arg("tensors"), py::arg("dim") = 0);
  m.def("allclose", &allclose, py::arg("input"), py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
        py::arg("equal_nan") = false);
  m.def("equal", &equal, py::arg("input"), py::arg("other"));
  m.def("is_nonzero", &is_nonzero, py::arg("input"));
  for (auto [name, compare] : {std::pair{"eq", py::overload_cast<const Tensor&, const Tensor&>(&eq)},
                               {"ne", py::overload_cast<const Tensor&, const Tensor&>(&ne)},
                               {"lt", py::overload_cast<const Tensor&, const Tensor&>(&lt)},
                               {"le", py::overload_cast<const Tensor&, const Tensor&>(&le)},
                               {"gt", py::overload_cast<const Tensor&, const Tensor&>(&gt)},
                               {"ge", py::overload_cast<const Tensor&, const Tensor&>(&ge)}})
    m.def(name, compare, py::arg("input"), py::arg("other"));
}

// torch.nn.functional, in the module `_C._functional` (ember.nn.functional re-exports it).
void bind_functional(py::module_& m) {
  py::module_ f = m.def_submodule("_functional", "torch.nn.functional's functions");
  f.def(
      "relu", [](const Tensor& t, bool inplace) { return inplace ? Tensor(t).relu_() : relu(t); }, py::arg("input"),
      py::arg("inplace") = false);
  f.def("sigmoid", &sigmoid, py::arg("input"));
  f.def("tanh", &tanh, py::arg("input"));
  f.def("softmax", &softmax, py::arg("input"), py::arg("dim"));
  f.def("log_softmax", &log_softmax, py::arg("input"), py::arg("dim"));
  f.def(
      "linear",
      [](const Tensor& input, const Tensor& weight, std::optional<Tensor> bias) {
        return linear(input, weight, bias.value_or(Tensor()));
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none());
  f.def(
      "layer_norm",
      [](const Tensor& input, py::object normalized_shape, std::optional<Tensor> weight, std::optional<Tensor> bias,
         double eps) {
        return layer_norm(input, dims_from_object(normalized_shape, "layer_norm"), weight.value_or(Tensor()),
                          bias.value_or(Tensor()), eps);
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
      py::arg("eps") = 1e-5);
  // The losses as torch._C._nn has them: the reduction is torch's enum (none 0, mean 1, sum 2), which
  // ember.nn.functional's Python wrappers make from the keyword arguments (nn/_reduction.py).
  f.def(
      "mse_loss",
      [](const Tensor& input, const Tensor& target, int64_t reduction) {
        return mse_loss(input, target, reduction_from(reduction));
      },
      py::arg("input"), py::arg("target"), py::arg("reduction") = 1);
  f.def(
      "nll_loss_nd",
      [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight, int64_t reduction,
         int64_t ignore_index) {
        return nll_loss_nd(input, target, weight.value_or(Tensor()), reduction_from(reduction), ignore_index);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = 1,
      py::arg("ignore_index") = -100);
  f.def(
      "cross_entropy_loss",
      [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight, int64_t reduction,
         int64_t ignore_index, double label_smoothing) {
        return cross_entropy(input, target, weight.value_or(Tensor()), reduction_from(reduction), ignore_index,
                             label_smoothing);
      },
      py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = 1,
      py::arg("ignore_index") = -100, py::arg("label_smoothing") = 0.0);
  f.def("dropout", &dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
}

}  // namespace

void bind_functions(py::module_& m) {
  bind_factories(m);
  bind_ops(m);
  bind_functional(m);
}

}  // namespace ember::python
