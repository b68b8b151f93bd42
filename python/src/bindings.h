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

#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
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
// What each Python tensor object holds: a Tensor handle, whose deleter forgets the object in its
// TensorImpl's slot when the object dies (python_object.cpp).
struct ForgetPythonObject {
  void operator()(Tensor* tensor) const;
};
using TensorClass = py::class_<Tensor, std::unique_ptr<Tensor, ForgetPythonObject>>;
// An in-place method's or operator's result is self: Python gets the object it called it on.
constexpr auto kSelf = py::return_value_policy::reference;
// The one Python object of `t` (made now if Python has not seen it, or taken back from its slot),
// as a new reference; None for an undefined tensor (torch's None for a missing .grad).
py::handle python_object_of(const Tensor& t);
// A node's one Python object (nodes.cpp): of the class named as the node (MulBackward0), or, for a
// Python autograd Function, its ctx; None for no node.
py::object python_object_of(const std::shared_ptr<autograd::Node>& node);
}  // namespace ember::python

namespace ember::python {
// The one Python object of each dtype (torch.float32), once module.cpp has made them; null before.
PyObject* dtype_object(DType dtype);
}  // namespace ember::python

// A dtype reaches Python as that one object, so that `t.dtype is torch.float32`, as in torch.
namespace pybind11::detail {
template <>
struct type_caster<ember::DType> : type_caster_base<ember::DType> {
  static handle cast(ember::DType dtype, return_value_policy policy, handle parent) {
    if (PyObject* object = ember::python::dtype_object(dtype)) return handle(object).inc_ref();
    return type_caster_base<ember::DType>::cast(dtype, policy, parent);
  }
  static handle cast(const ember::DType* dtype, return_value_policy policy, handle parent) {
    return cast(*dtype, policy, parent);
  }
};
}  // namespace pybind11::detail

// A node reaches Python as its one Python object (nodes.cpp).
namespace pybind11::detail {
template <>
struct type_caster<std::shared_ptr<ember::autograd::Node>>
    : copyable_holder_caster<ember::autograd::Node, std::shared_ptr<ember::autograd::Node>> {
  static handle cast(const std::shared_ptr<ember::autograd::Node>& node, return_value_policy, handle) {
    return ember::python::python_object_of(node).release();
  }
};
}  // namespace pybind11::detail

// A Tensor reaches Python as its one Python object (engine/core/python_object_slot.h). Reading a
// Tensor argument takes the handle straight from the object when it is a tensor (or of a subclass,
// nn.Parameter): every op's arguments pass here, and pybind11's general reading looks the type up
// in its tables each time. Anything else gets pybind11's reading (and its error).
namespace ember::python {
extern PyTypeObject* tensor_type;  // ember.Tensor, once bound (python_object.cpp)
Tensor* tensor_held_by(PyObject* object);
}  // namespace ember::python
namespace pybind11::detail {
template <>
struct type_caster<ember::Tensor> : type_caster_base<ember::Tensor> {
  bool load(handle source, bool convert) {
    if (PyObject_TypeCheck(source.ptr(), ember::python::tensor_type)) {
      value = ember::python::tensor_held_by(source.ptr());
      return true;
    }
    return type_caster_base<ember::Tensor>::load(source, convert);
  }
  static handle cast(const ember::Tensor& t, return_value_policy, handle) { return ember::python::python_object_of(t); }
  static handle cast(const ember::Tensor* t, return_value_policy, handle) {
    return t ? ember::python::python_object_of(*t) : none().release();
  }
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

// A Python object that C++ keeps (a hook, a pack hook's value, a node's metadata dict): shared, and
// released with the interpreter's lock held whichever thread drops it last (python_object.cpp).
std::shared_ptr<py::object> keep(py::object object);
// Calls a kept Python callable with the interpreter's lock held.
template <typename... Arguments>
py::object call(const std::shared_ptr<py::object>& function, Arguments&&... arguments) {
  py::gil_scoped_acquire gil;
  return (*function)(std::forward<Arguments>(arguments)...);
}
// How PyTorch names a Python hook in its errors: its __name__, or "<unknown>".
std::string hook_name(const py::object& hook);
// torch.typename: "torch.FloatTensor" for a tensor, else its class's name ("int").
std::string torch_typename(py::handle object);
// What a node's Python object offers, on _C.Node and on a Function's ctx alike (nodes.cpp).
py::tuple next_functions_of(const autograd::Node& node);
py::dict metadata_of(autograd::Node& node);
RemovableHandle register_python_hook(autograd::Node& node, const py::object& hook);
RemovableHandle register_python_prehook(autograd::Node& node, const py::object& hook);
py::object saved_tensor_object(const std::shared_ptr<autograd::Node>& node, autograd::SavedTensor* saved);
// A Python Function's ctx, or None for a node of another kind (custom_function.cpp).
py::object ctx_of(const autograd::CustomBackward& backward);
// register_hooks of a saved tensor with Python's pack and unpack hooks (saved_hooks.cpp).
void register_python_hooks(autograd::SavedTensor& saved, const py::function& pack, const py::function& unpack);

// Binds `f` (self first) as the Tensor method `name` and as the function `name` of the module,
// whose first argument is `input`: torch's two doors to one op. `arguments` name the others.
template <typename F, typename... Arguments>
void method_and_function(TensorClass& tensor, py::module_& m, const char* name, F f, const Arguments&... arguments) {
  tensor.def(name, f, arguments...);
  m.def(name, f, py::arg("input"), arguments...);
}

// torch.from_numpy: a tensor over the array's memory, keeping the array alive (numpy_interop.cpp).
Tensor from_numpy(py::handle array);

// Each file binds one concept; module.cpp calls them in order.
void bind_dtypes_and_devices(py::module_& m);
void bind_python_object(py::module_& m, TensorClass& tensor);
void bind_tensor(py::module_& m, TensorClass& tensor);
void bind_tensor_operators(TensorClass& tensor);
void bind_views(py::module_& m, TensorClass& tensor);
void bind_math(py::module_& m, TensorClass& tensor);
void bind_functions(py::module_& m);
void bind_numpy(py::module_& m, TensorClass& tensor);
void bind_autograd(py::module_& m);
void bind_nodes(py::module_& m);
void bind_custom_function(py::module_& m);
void bind_saved_hooks(py::module_& m);
void bind_nn(py::module_& m);
void bind_nn_containers(py::module_& m);
void bind_optim(py::module_& m);
void bind_profiler(py::module_& m);
void bind_dispatch_trace(py::module_& m);
void bind_compile(py::module_& m);

}  // namespace ember::python
