// What the files of the `_C` extension share: the conversions between Python values and ember's
// C++ types. The binding converts and forwards, as torch's own binding layer does over ATen:
// Python numbers become Scalars (keeping int/float/bool apart, as PyTorch's type promotion needs),
// size arguments (`randn(4, 8)`, `randn((4, 8))`) become Dims, `dtype=`/`device=`/`requires_grad=`
// become Options. Everything a tensor does is ember's C++ API; what torch writes in Python
// (torch/_tensor.py, torch/nn/modules/module.py) is in the Python package beside it.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "ember.h"

namespace py = pybind11;

// A Python number as an ember::Scalar: bool before int (bool is an int in Python), then int, then
// float; with conversion allowed, anything with __index__ (NumPy integers) or __float__.
namespace pybind11::detail {
template <>
struct type_caster<ember::Scalar> {
  static constexpr auto name = const_name("Number");
  template <typename T>
  using cast_op_type = movable_cast_op_type<T>;
  operator ember::Scalar*() { return &value; }
  operator ember::Scalar&() { return value; }
  operator ember::Scalar&&() && { return std::move(value); }

  bool load(handle source, bool convert);
  static handle cast(const ember::Scalar& scalar, return_value_policy, handle);

 private:
  ember::Scalar value{int64_t{0}};
};
}  // namespace pybind11::detail

namespace ember::python {

// The sizes of `randn(4, 8)`, `randn((4, 8))`, `randn([4, 8])` and `randn()`.
Dims dims_from_args(const py::args& args, const char* function);
// A Python int or a sequence of ints (`sum(dim=1)`, `sum(dim=(0, 1))`) as Dims.
Dims dims_from_object(py::handle object, const char* function);
// torch's keyword arguments of a factory.
Options options_from(std::optional<DType> dtype, std::optional<Device> device, bool requires_grad);
// A tensor as Python's value of one element: float, int or bool by its dtype (t.item()).
py::object item(const Tensor& t);
// What a Python `t[...]` index means in ember (indexing.h): ints, slices, None, Ellipsis.
std::vector<indexing::TensorIndex> tensor_indices(py::handle index);

// torch.from_numpy: a tensor over the array's memory, keeping the array alive (numpy_interop.cpp).
Tensor from_numpy(py::handle array);

// Each file binds one concept; module.cpp calls them in order.
void bind_dtypes_and_devices(py::module_& m);
void bind_tensor(py::module_& m, py::class_<Tensor>& tensor);
void bind_tensor_operators(py::class_<Tensor>& tensor);
void bind_functions(py::module_& m);
void bind_numpy(py::module_& m, py::class_<Tensor>& tensor);
void bind_autograd(py::module_& m);
void bind_nn(py::module_& m);
void bind_optim(py::module_& m);
void bind_profiler(py::module_& m);

}  // namespace ember::python
