// Python's operators on tensors: arithmetic (`a + b`, `2 * t`, `a @ b`), comparisons, the in-place
// forms (`row += 100` changes the tensor row views, and leaves `row` the same object) and indexing
// (`t[0]`, `t[:, 1:3]`, `t[0] = 5`), each one call of ember's C++ operators or of indexing.h. A
// Python number is a wrapped number (ops.h), so `x * 2` records MulBackward0 as in torch.
// These are the hot path of a Python loop over small tensors: the overloads take the Tensor by
// reference and return it by value, with no std::function or Python-side wrapper in between; an
// operand of another type makes the overload return NotImplemented (py::is_operator), so Python
// tries the reflected form, as with torch.
#include "bindings.h"

namespace ember::python {

namespace {

// Binds `name` (with `extra`: py::is_operator or the argument's name) for another tensor on the
// right and then for a Python number there, pybind11 trying them in that order, where both read
// the same: `compute` is a generic lambda, [](const Tensor& a, const auto& b) { return a == b; },
// which each overload calls inline.
template <typename Extra, typename Compute>
void def_tensor_and_number(TensorClass& tensor, const char* name, const Extra& extra, Compute compute) {
  tensor.def(
      name, [compute](const Tensor& a, const Tensor& b) { return compute(a, b); }, extra);
  tensor.def(
      name, [compute](const Tensor& a, Scalar b) { return compute(a, b); }, extra);
}

}  // namespace

void bind_tensor_operators(TensorClass& tensor) {
  const auto op = py::is_operator();
  tensor
      .def(
          "__add__", [](const Tensor& a, const Tensor& b) { return a + b; }, op)
      .def(
          "__add__", [](const Tensor& a, Scalar b) { return wrapped_number::add(a, b); }, op)
      .def(
          "__radd__", [](const Tensor& a, Scalar b) { return wrapped_number::add(a, b); }, op)
      .def(
          "__sub__", [](const Tensor& a, const Tensor& b) { return a - b; }, op)
      .def(
          "__sub__", [](const Tensor& a, Scalar b) { return wrapped_number::sub(a, b); }, op)
      .def(
          "__rsub__", [](const Tensor& a, Scalar b) { return rsub(a, b); }, op)
      .def(
          "__mul__", [](const Tensor& a, const Tensor& b) { return a * b; }, op)
      .def(
          "__mul__", [](const Tensor& a, Scalar b) { return wrapped_number::mul(a, b); }, op)
      .def(
          "__rmul__", [](const Tensor& a, Scalar b) { return wrapped_number::mul(a, b); }, op)
      .def(
          "__truediv__", [](const Tensor& a, const Tensor& b) { return a / b; }, op)
      .def(
          "__truediv__", [](const Tensor& a, Scalar b) { return wrapped_number::div(a, b); }, op)
      .def(
          "__rtruediv__", [](const Tensor& a, Scalar b) { return wrapped_number::mul(pow(a, -1), b); }, op)
      .def(
          "__matmul__", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }, op)
      .def(
          "__pow__", [](const Tensor& a, Scalar exponent) { return pow(a, exponent); }, op)
      .def(
          "__neg__", [](const Tensor& a) { return -a; }, op)
      .def(
          "__abs__", [](const Tensor& a) { return abs(a); }, op);

  // Comparisons read the same for a tensor and a number on the right.
  def_tensor_and_number(tensor, "__eq__", op, [](const Tensor& a, const auto& b) { return a == b; });
  def_tensor_and_number(tensor, "__ne__", op, [](const Tensor& a, const auto& b) { return a != b; });
  def_tensor_and_number(tensor, "__lt__", op, [](const Tensor& a, const auto& b) { return a < b; });
  def_tensor_and_number(tensor, "__le__", op, [](const Tensor& a, const auto& b) { return a <= b; });
  def_tensor_and_number(tensor, "__gt__", op, [](const Tensor& a, const auto& b) { return a > b; });
  def_tensor_and_number(tensor, "__ge__", op, [](const Tensor& a, const auto& b) { return a >= b; });
  // `x // y` and `x % y`: PyTorch's Scalar overloads for a number (RemainderBackward0).
  def_tensor_and_number(tensor, "__floordiv__", op, [](const Tensor& a, const auto& b) { return floor_divide(a, b); });
  def_tensor_and_number(tensor, "__mod__", op, [](const Tensor& a, const auto& b) { return remainder(a, b); });

  tensor
      .def(
          "__iadd__", [](Tensor& a, const Tensor& b) -> Tensor& { return a += b; }, op, kSelf)
      .def(
          "__iadd__", [](Tensor& a, Scalar b) -> Tensor& { return wrapped_number::add_(a, b); }, op, kSelf)
      .def(
          "__isub__", [](Tensor& a, const Tensor& b) -> Tensor& { return a -= b; }, op, kSelf)
      .def(
          "__isub__", [](Tensor& a, Scalar b) -> Tensor& { return wrapped_number::sub_(a, b); }, op, kSelf)
      .def(
          "__imul__", [](Tensor& a, const Tensor& b) -> Tensor& { return a *= b; }, op, kSelf)
      .def(
          "__imul__", [](Tensor& a, Scalar b) -> Tensor& { return wrapped_number::mul_(a, b); }, op, kSelf)
      .def(
          "__itruediv__", [](Tensor& a, const Tensor& b) -> Tensor& { return a /= b; }, op, kSelf)
      .def(
          "__itruediv__", [](Tensor& a, Scalar b) -> Tensor& { return wrapped_number::div_(a, b); }, op, kSelf)
      .def(
          "add_", [](Tensor& a, const Tensor& b, Scalar alpha) -> Tensor& { return a.add_(b, alpha); },
          py::arg("other"), py::arg("alpha") = 1, kSelf)
      .def("add_", &wrapped_number::add_, py::arg("other"), kSelf)
      .def(
          "sub_", [](Tensor& a, const Tensor& b, Scalar alpha) -> Tensor& { return a.sub_(b, alpha); },
          py::arg("other"), py::arg("alpha") = 1, kSelf)
      .def("sub_", &wrapped_number::sub_, py::arg("other"), kSelf)
      .def("mul_", py::overload_cast<const Tensor&>(&Tensor::mul_), py::arg("other"), kSelf)
      .def("mul_", &wrapped_number::mul_, py::arg("other"), kSelf)
      .def("div_", py::overload_cast<const Tensor&>(&Tensor::div_), py::arg("other"), kSelf)
      .def("div_", &wrapped_number::div_, py::arg("other"), kSelf);

  // Method forms of the binary ops, with torch's `alpha` where it has one.
  tensor
      .def(
          "add", [](const Tensor& a, const Tensor& b, Scalar alpha) { return add(a, b, alpha); }, py::arg("other"),
          py::kw_only(), py::arg("alpha") = 1)
      .def(
          "add", [](const Tensor& a, Scalar b) { return wrapped_number::add(a, b); }, py::arg("other"))
      .def(
          "sub", [](const Tensor& a, const Tensor& b, Scalar alpha) { return sub(a, b, alpha); }, py::arg("other"),
          py::kw_only(), py::arg("alpha") = 1)
      .def(
          "sub", [](const Tensor& a, Scalar b) { return wrapped_number::sub(a, b); }, py::arg("other"))
      .def(
          "mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }, py::arg("other"))
      .def(
          "mul", [](const Tensor& a, Scalar b) { return wrapped_number::mul(a, b); }, py::arg("other"))
      .def(
          "div", [](const Tensor& a, const Tensor& b) { return div(a, b); }, py::arg("other"))
      .def(
          "div", [](const Tensor& a, Scalar b) { return wrapped_number::div(a, b); }, py::arg("other"));
  def_tensor_and_number(tensor, "eq", py::arg("other"), [](const Tensor& a, const auto& b) { return eq(a, b); });
  def_tensor_and_number(tensor, "ne", py::arg("other"), [](const Tensor& a, const auto& b) { return ne(a, b); });
  def_tensor_and_number(tensor, "lt", py::arg("other"), [](const Tensor& a, const auto& b) { return lt(a, b); });
  def_tensor_and_number(tensor, "le", py::arg("other"), [](const Tensor& a, const auto& b) { return le(a, b); });
  def_tensor_and_number(tensor, "gt", py::arg("other"), [](const Tensor& a, const auto& b) { return gt(a, b); });
  def_tensor_and_number(tensor, "ge", py::arg("other"), [](const Tensor& a, const auto& b) { return ge(a, b); });

  // t[i] is Tensor::operator[] (select, with Python's messages); anything else goes through
  // indexing.h. t[...] = value fills the indexed view or copies into it.
  tensor
      .def("__getitem__",
           [](const Tensor& t, py::handle index) {
             if (PyLong_CheckExact(index.ptr())) return t[index.cast<int64_t>()];
             return ember::index(t, tensor_indices(index));
           })
      .def("__setitem__",
           [](Tensor& t, py::handle index, const Tensor& value) { index_put_(t, tensor_indices(index), value); })
      .def("__setitem__",
           [](Tensor& t, py::handle index, Scalar value) { index_put_(t, tensor_indices(index), value); });
}

}  // namespace ember::python
