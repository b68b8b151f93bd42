// One Python object per tensor, as PyTorch's: the object a TensorImpl is given the first time it
// reaches Python is kept in its slot (engine/core/python_object_slot.h) and handed out every time
// after, so identity (`is`), attributes and the object's class (nn.Parameter) are the tensor's own.
// When the object's last Python reference goes while C++ still holds the tensor, the object is
// preserved, not freed: the slot takes it over (its tp_dealloc, or its class's tp_del for a
// Python subclass, resurrects it), and the next trip to Python returns it. PyTorch 1.13 does the
// same (THPVariable_tryResurrect in torch/csrc/autograd/python_variable.cpp).
#include "bindings.h"

namespace ember::python {

PyTypeObject* tensor_type = nullptr;

// Read straight from pybind11's instance, as every tensor object has Tensor as its only C++ part.
Tensor* tensor_held_by(PyObject* object) {
  return reinterpret_cast<py::detail::instance*>(object)->get_value_and_holder().value_ptr<Tensor>();
}

namespace {

destructor pybind_dealloc = nullptr;

// The Tensor handle a Python tensor object holds (undefined while the slot owns the object).
Tensor& held_by(PyObject* object) { return *tensor_held_by(object); }

// Case 2 of python_object_slot.h: the object is about to be freed, but C++ still holds the tensor.
// Gives the object one reference, owned by the slot, and drops the object's hold on the tensor.
bool preserve(PyObject* object) {
  Tensor& held = held_by(object);
  if (!held.defined() || held.impl_ptr().use_count() == 1) return false;
  PythonObjectSlot& slot = held.impl()->python_object;
  if (slot.object != object) return false;
  Py_INCREF(object);
  slot.owned = true;
  held = Tensor();
  return true;
}

// tp_dealloc of ember.Tensor itself. (A Python subclass's objects reach it from CPython's
// subtype_dealloc after their dict and slots are cleared, too late to keep them: its tp_del does.)
void tensor_dealloc(PyObject* object) {
  if (Py_TYPE(object) == tensor_type && preserve(object)) return;
  pybind_dealloc(object);
}

// tp_del of a Python subclass (nn.Parameter): CPython's subtype_dealloc calls it first, and keeps
// the object when it comes back with a reference.
void subclass_del(PyObject* object) { preserve(object); }

void release_owned(void* object) {
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;  // the interpreter is gone: nothing to free
  py::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(object));
}

}  // namespace

void ForgetPythonObject::operator()(Tensor* tensor) const {
  if (tensor->defined()) tensor->impl()->python_object.object = nullptr;
  delete tensor;
}

py::handle python_object_of(const Tensor& t) {
  if (!t.defined()) return py::none().release();
  PythonObjectSlot& slot = t.impl()->python_object;
  if (auto* object = static_cast<PyObject*>(slot.object)) {
    if (!slot.owned) return py::handle(object).inc_ref();
    slot.owned = false;  // Python holds it again, and it holds the tensor; the slot's reference is the caller's
    held_by(object) = t;
    return object;
  }
  // A new object holding a copy of the handle, made with Tensor's type record found once (pybind11's
  // usual cast looks it up by the C++ type's name on every call).
  static const py::detail::type_info* tensor_record = py::detail::get_type_info(typeid(Tensor));
  py::handle made = py::detail::type_caster_generic::cast(
      &t, py::return_value_policy::copy, {}, tensor_record,
      [](const void* handle) -> void* { return new Tensor(*static_cast<const Tensor*>(handle)); }, nullptr);
  slot.object = made.ptr();
  return made;
}

std::shared_ptr<py::object> keep(py::object object) {
  return std::shared_ptr<py::object>(new py::object(std::move(object)), [](py::object* kept) {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) {  // the interpreter is gone: leave the object be
      kept->release();
    } else {
      py::gil_scoped_acquire gil;
      *kept = py::object();
    }
    delete kept;
  });
}

void bind_python_object(py::module_& m, TensorClass& tensor) {
  tensor_type = reinterpret_cast<PyTypeObject*>(tensor.ptr());
  pybind_dealloc = tensor_type->tp_dealloc;
  tensor_type->tp_dealloc = tensor_dealloc;
  PythonObjectSlot::release_owned = release_owned;
  // Called by Tensor.__init_subclass__ (python/ember/_tensor.py) for each Python subclass.
  m.def("_preserve_objects_of",
        [](py::type subclass) { reinterpret_cast<PyTypeObject*>(subclass.ptr())->tp_del = subclass_del; });
  // torch.Tensor._make_subclass(cls, data, requires_grad): a new leaf over data's storage, whose
  // Python object is of class `cls` (how nn.Parameter is made). `cls` adds no slots to Tensor's layout.
  tensor.def_static(
      "_make_subclass",
      [](py::type cls, const Tensor& data, bool requires_grad) {
        Tensor leaf = data.detach();
        leaf.requires_grad_(requires_grad);
        py::object object = py::cast(leaf);
        object.attr("__class__") = cls;
        return object;
      },
      py::arg("cls"), py::arg("data"), py::arg("require_grad") = false);
}

}  // namespace ember::python
