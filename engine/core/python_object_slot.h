// PythonObjectSlot: where a tensor keeps its one Python object (PyTorch's c10/core/impl/PyObjectSlot.h),
// so that every time the same TensorImpl reaches Python it is the same object: `x.grad is x.grad`,
// `v._base is t`, an nn.Parameter stays a Parameter, and attributes set on a tensor stay on it.
// The core knows nothing of Python: the slot holds an opaque pointer that the binding
// (python/src/python_object.cpp) fills and reads.
//
// Who owns whom (PyTorch's PyObject preservation):
//  1. Normally the Python object owns the tensor (it holds a Tensor handle) and `object` is a plain
//     pointer back, cleared when the Python object dies.
//  2. When the Python object's last Python reference goes while C++ still holds the tensor (a
//     graph saved it, a module keeps it as a parameter), the binding turns it around: the object
//     drops its handle and the slot owns the object (`owned`), so the two never form a cycle.
//     The next time the tensor reaches Python it gets this same object back (and case 1 again);
//     if it never does, the object is released with the TensorImpl.
#pragma once

namespace ember {

struct PythonObjectSlot {
  void* object = nullptr;  // the Python object (a PyObject*), or null when Python has not seen the tensor
  bool owned = false;      // case 2 above: the slot holds the object's one reference

  // Releases an owned object; set by the binding when it loads (it takes the interpreter's lock).
  static inline void (*release_owned)(void* object) = nullptr;

  PythonObjectSlot() = default;
  PythonObjectSlot(const PythonObjectSlot&) = delete;
  PythonObjectSlot& operator=(const PythonObjectSlot&) = delete;
  ~PythonObjectSlot() {
    if (owned && release_owned) release_owned(object);
  }
};

}  // namespace ember
