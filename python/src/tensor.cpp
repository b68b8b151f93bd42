// ember.Tensor: the C++ Tensor handle held by value in each Python object (a shared pointer to its
// TensorImpl, so two Python names for one tensor see the same storage, version counter and grad).
// Its layout, autograd state, views, conversions and reductions, each forwarded to one C++ call.
// An in-place method returns the Python object it was called on, as torch's do.
#include "bindings.h"

namespace ember::python {

namespace {

// t.tolist(): nested Python lists of t's values (a number for a 0-dim tensor).
template <typename T>
py::object nested_list(const T*& values, const Dims& sizes, int64_t dim) {
  if (dim == sizes.size()) {
    if constexpr (std::is_same_v<T, bool>) return py::bool_(*values++);
    else return py::cast(*values++);
  }
  py::list out(static_cast<size_t>(sizes[dim]));
  for (int64_t i = 0; i < sizes[dim]; ++i) out[static_cast<size_t>(i)] = nested_list(values, sizes, dim + 1);
  return out;
}
template <typename T>
py::object tolist_as(const Tensor& t) {
  const std::vector<T> values = t.to_vector<T>();
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
    std::unique_ptr<bool[]> flat(new bool[values.size()]);
    std::copy(values.begin(), values.end(), flat.get());
    const bool* cursor = flat.get();
    return nested_list(cursor, t.sizes(), 0);
  } else {
    const T* cursor = values.data();
    return nested_list(cursor, t.sizes(), 0);
  }
}
py::object tolist(const Tensor& t) {
  switch (t.dtype()) {
    case kBool: return tolist_as<bool>(t);
    default: return is_integral(t.dtype(), false) ? tolist_as<int64_t>(t) : tolist_as<double>(t);
  }
}

py::tuple dims_tuple(const Dims& dims) {
  py::tuple out(static_cast<size_t>(dims.size()));
  for (int64_t i = 0; i < dims.size(); ++i) out[static_cast<size_t>(i)] = py::int_(dims[i]);
  return out;
}

py::object optional_tensor(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

py::tuple values_indices(const ValuesIndices& result) { return py::make_tuple(result.values, result.indices); }

}  // namespace

void bind_tensor(py::module_& m, TensorClass& tensor) {
  // ---- layout ----
  tensor.def_property_readonly("_sizes", [](const Tensor& t) { return dims_tuple(t.sizes()); })
      .def("stride", [](const Tensor& t) { return dims_tuple(t.strides()); })
      .def(
          "stride", [](const Tensor& t, int64_t dim) { return t.stride(dim); }, py::arg("dim"))
      .def("dim", &Tensor::dim)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().is_cuda(); })
      .def("storage_offset", &Tensor::storage_offset)
      // The whole storage as a flat tensor of t's dtype (a new TensorImpl over the same bytes, no
      // view, no autograd): what ember.storage's TypedStorage reads. Keeps the storage alive.
      .def("_storage_as_flat",
           [](const Tensor& t) {
             const auto& storage = t.impl()->storage;
             const int64_t elements = storage->nbytes / t.element_size();
             return Tensor(make_recycled<TensorImpl>(storage, Dims{elements}, Dims{1}, 0, t.dtype(), true));
           })
      .def("element_size", &Tensor::element_size)
      .def("is_floating_point", &Tensor::is_floating_point)
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); });

  // ---- autograd ----
  tensor
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& t, bool requires_grad) { t.requires_grad_(requires_grad); })
      .def(
          "requires_grad_",
          [](Tensor& t, bool requires_grad) -> Tensor& {
            // torch's method has a text of its own; its setter (t.requires_grad = True) has the C++ one.
            EMBER_CHECK(!requires_grad || t.is_floating_point(),
                        "only Tensors of floating point dtype can require gradients");
            return t.requires_grad_(requires_grad);
          },
          py::arg("requires_grad") = true, kSelf)
      .def_property(
          "grad", [](const Tensor& t) { return optional_tensor(t.grad()); },
          [](const Tensor& t, std::optional<Tensor> grad) { t.mutable_grad() = grad.value_or(Tensor()); })
      .def_property_readonly("grad_fn", &Tensor::grad_fn)
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def(
          "register_hook",
          [](const Tensor& t, const py::object& hook) {
            return t.register_hook([kept = keep(hook)](const Tensor& grad) {
              py::gil_scoped_acquire gil;
              py::object replaced = call(kept, grad);
              if (replaced.is_none()) return Tensor();
              EMBER_CHECK(grad.defined(), "can't replace a None gradient with a non-None value");
              Tensor result = replaced.cast<Tensor>();
              autograd::check_hook_result(grad, result, hook_name(*kept));  // checked under the hook's own name
              return result;
            });
          },
          py::arg("hook"))
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def_property_readonly("output_nr",
                             [](const Tensor& t) {
                               const auto* meta = t.impl()->autograd_meta.get();
                               return meta ? meta->output_nr : 0u;
                             })
      .def("detach", &Tensor::detach)
      .def("detach_", &Tensor::detach_, kSelf)
      .def_property("data", &Tensor::data, [](const Tensor& t, const Tensor& data) { t.set_data(data); })
      .def_property_readonly("_version", &Tensor::_version)
      .def("is_inference", &Tensor::is_inference)
      .def("_is_view", &Tensor::_is_view)
      .def_property_readonly("_base", [](const Tensor& t) { return optional_tensor(t._base()); })
      .def("is_alias_of", &Tensor::is_alias_of, py::arg("other"));

  // ---- copies (the views are views.cpp) ----
  tensor
      .def(
          "contiguous",
          [](const Tensor& t, MemoryFormat memory_format) {
            return memory_format == MemoryFormat::Preserve ? t : t.contiguous(memory_format);
          },
          py::arg("memory_format") = MemoryFormat::Contiguous)
      .def(
          "is_contiguous",
          [](const Tensor& t, MemoryFormat memory_format) {
            return memory_format == MemoryFormat::Preserve || t.is_contiguous(memory_format);
          },
          py::arg("memory_format") = MemoryFormat::Contiguous)
      .def(
          "clone", [](const Tensor& t, MemoryFormat memory_format) { return t.clone(memory_format); }, py::kw_only(),
          py::arg("memory_format") = MemoryFormat::Preserve)
      .def(
          "resize_", [](Tensor& t, py::args sizes) -> Tensor& { return t.resize_(dims_from_args(sizes, "resize_")); },
          kSelf)
      .def("resize_as_", &Tensor::resize_as_, py::arg("the_template"), kSelf)
      // set_(source) and set_(); set_ of a storage arrives from ember/_tensor.py as _set_storage.
      .def("set_", py::overload_cast<>(&Tensor::set_), kSelf)
      .def("set_", py::overload_cast<const Tensor&>(&Tensor::set_), py::arg("source"), kSelf)
      // The storage under `flat` (ember.storage's tensor over a whole storage); a typed storage must
      // hold this tensor's dtype, as PyTorch's argument parser checks.
      .def(
          "_set_storage",
          [](Tensor& t, const Tensor& flat, bool typed, std::optional<int64_t> storage_offset, const py::object& size,
             const py::object& stride) -> Tensor& {
            EMBER_CHECK(!typed || flat.dtype() == t.dtype(), "Expected a Storage of type ", type_meta_name(t.dtype()),
                        " or an UntypedStorage, but got type ", scalar_type_name(flat.dtype()),
                        " for argument 1 'storage'");
            if (!storage_offset) return t.set_(flat.storage());
            const Dims strides = stride.is_none() ? Dims() : dims_from_object(stride, "set_");
            return t.set_(flat.storage(), *storage_offset, dims_from_object(size, "set_"), strides);
          },
          kSelf);
  m.def("resize_as_", &resize_as_, py::arg("input"), py::arg("the_template"), kSelf);

  // ---- conversion ----
  tensor
      .def(
          "to",
          [](const Tensor& t, MemoryFormat memory_format) {
            return memory_format == MemoryFormat::Preserve ? t : t.contiguous(memory_format);
          },
          py::kw_only(), py::arg("memory_format"))
      .def("to", py::overload_cast<DType>(&Tensor::to, py::const_), py::arg("dtype"))
      .def("to", py::overload_cast<Device>(&Tensor::to, py::const_), py::arg("device"))
      .def(
          "to", [](const Tensor& t, Device device, DType dtype) { return t.to(device).to(dtype); }, py::arg("device"),
          py::arg("dtype"))
      .def(
          "to", [](const Tensor& t, const Tensor& other) { return t.to(other.device()).to(other.dtype()); },
          py::arg("other"))
      .def("cpu", [](const Tensor& t) { return t.to(kCPU); })
      .def(
          "cuda", [](const Tensor& t, int device) { return t.to(cuda_device(device)); }, py::arg("device") = 0)
      .def("float", [](const Tensor& t) { return t.to(kFloat32); })
      .def("double", [](const Tensor& t) { return t.to(kFloat64); })
      .def("half", [](const Tensor& t) { return t.to(kFloat16); })
      .def("bfloat16", [](const Tensor& t) { return t.to(kBFloat16); })
      .def("long", [](const Tensor& t) { return t.to(kInt64); })
      .def("int", [](const Tensor& t) { return t.to(kInt32); })
      .def("short", [](const Tensor& t) { return t.to(kInt16); })
      .def("char", [](const Tensor& t) { return t.to(kInt8); })
      .def("byte", [](const Tensor& t) { return t.to(kUInt8); })
      .def("bool", [](const Tensor& t) { return t.to(kBool); })
      .def("item", &item)
      .def("tolist", &tolist)
      .def("__repr__", &Tensor::str)
      .def("__hash__", [](py::handle self) { return py::hash(py::int_(reinterpret_cast<uintptr_t>(self.ptr()))); })
      .def("__bool__", &is_nonzero)
      .def("__float__", [](const Tensor& t) { return item(t).cast<double>(); })
      // Python's int() of the value: NaN raises ValueError, an infinity OverflowError, as torch's.
      .def("__int__", [](const Tensor& t) { return py::int_(item(t)); })
      .def("__index__", [](const Tensor& t) {
        if (t.dtype() != kInt64 || t.numel() != 1)
          throw py::type_error("only integer tensors of a single element can be converted to an index");
        return t.item<int64_t>();
      });

  // ---- math (the functions of ops.h as methods) ----
  tensor
      .def(
          "sum",
          [](const Tensor& t, py::object dim, bool keepdim) {
            return dim.is_none() ? t.sum() : t.sum(dims_from_object(dim, "sum"), keepdim);
          },
          py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def(
          "mean",
          [](const Tensor& t, py::object dim, bool keepdim) {
            return dim.is_none() ? t.mean() : t.mean(dims_from_object(dim, "mean"), keepdim);
          },
          py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("max", [](const Tensor& t) { return t.max(); })
      .def(
          "max", [](const Tensor& t, int64_t dim, bool keepdim) { return values_indices(max(t, dim, keepdim)); },
          py::arg("dim"), py::arg("keepdim") = false)
      .def("min", [](const Tensor& t) { return t.min(); })
      .def(
          "min", [](const Tensor& t, int64_t dim, bool keepdim) { return values_indices(min(t, dim, keepdim)); },
          py::arg("dim"), py::arg("keepdim") = false)
      .def("argmax", &Tensor::argmax, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("pow", &Tensor::pow, py::arg("exponent"))
      .def("matmul", &Tensor::matmul, py::arg("other"))
      .def("mm", &Tensor::mm, py::arg("mat2"))
      .def(
          "softmax", [](const Tensor& t, int64_t dim) { return softmax(t, dim); }, py::arg("dim"))
      .def(
          "log_softmax", [](const Tensor& t, int64_t dim) { return log_softmax(t, dim); }, py::arg("dim"));

  // ---- in place: each returns the object it was called on ----
  tensor.def("zero_", &Tensor::zero_, kSelf)
      .def("fill_", &Tensor::fill_, py::arg("value"), kSelf)
      .def("copy_", &Tensor::copy_, py::arg("src"), kSelf)
      .def(
          "uniform_", [](Tensor& t, double from, double to) -> Tensor& { return uniform_(t, from, to); },
          py::arg("from") = 0.0, py::arg("to") = 1.0, kSelf)
      .def(
          "normal_", [](Tensor& t, double mean, double std) -> Tensor& { return normal_(t, mean, std); },
          py::arg("mean") = 0.0, py::arg("std") = 1.0, kSelf)
      .def(
          "bernoulli_", [](Tensor& t, double p) -> Tensor& { return bernoulli_(t, p); }, py::arg("p") = 0.5, kSelf)
      // torch's three forms: random_(from, to), random_(to) and random_().
      .def(
          "random_", [](Tensor& t, int64_t from, int64_t to) -> Tensor& { return random_(t, from, to); },
          py::arg("from"), py::arg("to"), kSelf)
      .def(
          "random_", [](Tensor& t, int64_t to) -> Tensor& { return random_(t, to); }, py::arg("to"), kSelf)
      .def(
          "random_", [](Tensor& t) -> Tensor& { return random_(t); }, kSelf);
}

}  // namespace ember::python
