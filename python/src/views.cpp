// Views, the ops that cut a tensor into pieces, and the in-place views, each bound as torch has
// it: a Tensor method and, where torch has one, an `ember.` function taking the tensor as `input`
// (both call the same C++ op). Sizes may be given as several ints or as one sequence, as torch's.
#include "bindings.h"

namespace ember::python {

namespace {

py::tuple tuple_of(const std::vector<Tensor>& tensors) { return py::tuple(py::cast(tensors)); }

// torch.split's second argument: one size, or a list of sizes.
std::vector<Tensor> split_by(const Tensor& t, const py::object& split_size_or_sections, int64_t dim, bool unsafe) {
  if (PyLong_Check(split_size_or_sections.ptr())) {
    const int64_t size = split_size_or_sections.cast<int64_t>();
    return unsafe ? unsafe_split(t, size, dim) : split(t, size, dim);
  }
  const auto sizes = split_size_or_sections.cast<std::vector<int64_t>>();
  return unsafe ? unsafe_split_with_sizes(t, sizes, dim) : split_with_sizes(t, sizes, dim);
}

// torch.tensor_split's (and hsplit's) second argument: a number of sections, indices, or a tensor of either.
template <typename BySections, typename ByIndices>
py::tuple split_as_given(const py::object& indices_or_sections, BySections by_sections, ByIndices by_indices) {
  if (PyLong_Check(indices_or_sections.ptr())) return tuple_of(by_sections(indices_or_sections.cast<int64_t>()));
  return tuple_of(by_indices(indices_or_sections.cast<std::vector<int64_t>>()));
}

// torch.atleast_1d(*tensors): one tensor gives a tensor; several, or one list of them, a tuple.
template <typename One, typename Many>
py::object at_least(const py::args& tensors, One one, Many many) {
  if (tensors.size() == 1 && py::isinstance<Tensor>(tensors[0])) return py::cast(one(tensors[0].cast<Tensor>()));
  const py::object list = tensors.size() == 1 ? py::reinterpret_borrow<py::object>(tensors[0]) : py::object(tensors);
  return tuple_of(many(list.cast<std::vector<Tensor>>()));
}

}  // namespace

void bind_views(py::module_& m, TensorClass& tensor) {
  // ---- views (share storage and version counter) ----
  tensor
      .def(
          "view", [](const Tensor& t, DType dtype) { return t.view(dtype); }, py::arg("dtype"))
      .def("view", [](const Tensor& t, py::args shape) { return t.view(dims_from_args(shape, "view")); })
      .def("reshape", [](const Tensor& t, py::args shape) { return t.reshape(dims_from_args(shape, "reshape")); })
      .def("permute", [](const Tensor& t, py::args dims) { return t.permute(dims_from_args(dims, "permute")); })
      .def("expand", [](const Tensor& t, py::args sizes) { return t.expand(dims_from_args(sizes, "expand")); })
      .def("view_as", &Tensor::view_as, py::arg("other"))
      .def("expand_as", &Tensor::expand_as, py::arg("other"));
  m.def(
      "reshape", [](const Tensor& t, py::object shape) { return t.reshape(dims_from_object(shape, "reshape")); },
      py::arg("input"), py::arg("shape"));
  m.def(
      "permute", [](const Tensor& t, py::object dims) { return t.permute(dims_from_object(dims, "permute")); },
      py::arg("input"), py::arg("dims"));
  method_and_function(tensor, m, "select", &Tensor::select, py::arg("dim"), py::arg("index"));
  // narrow's start as a 0-dim integer tensor first: pybind11 would take a tensor as an int.
  method_and_function(tensor, m, "narrow",
                      py::overload_cast<int64_t, const Tensor&, int64_t>(&Tensor::narrow, py::const_), py::arg("dim"),
                      py::arg("start"), py::arg("length"));
  method_and_function(tensor, m, "narrow", py::overload_cast<int64_t, int64_t, int64_t>(&Tensor::narrow, py::const_),
                      py::arg("dim"), py::arg("start"), py::arg("length"));
  method_and_function(tensor, m, "t", &Tensor::t);
  method_and_function(tensor, m, "transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"));
  method_and_function(
      tensor, m, "squeeze",
      [](const Tensor& t, std::optional<int64_t> dim) { return dim ? t.squeeze(*dim) : t.squeeze(); },
      py::arg("dim") = py::none());
  method_and_function(tensor, m, "unsqueeze", &Tensor::unsqueeze, py::arg("dim"));
  method_and_function(tensor, m, "flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  method_and_function(tensor, m, "diagonal", &diagonal, py::arg("offset") = 0, py::arg("dim1") = 0,
                      py::arg("dim2") = 1);

  // ---- views written with other views (composite_views.cpp) ----
  for (auto [name, move] : {std::pair{"movedim", &movedim}, {"moveaxis", &moveaxis}})
    method_and_function(
        tensor, m, name,
        [move](const Tensor& t, const py::object& source, const py::object& destination) {
          return move(t, dims_from_object(source, "movedim"), dims_from_object(destination, "movedim"));
        },
        py::arg("source"), py::arg("destination"));
  method_and_function(tensor, m, "swapaxes", &swapaxes, py::arg("axis0"), py::arg("axis1"));
  method_and_function(tensor, m, "swapdims", &swapdims, py::arg("dim0"), py::arg("dim1"));
  method_and_function(
      tensor, m, "unflatten",
      [](const Tensor& t, int64_t dim, const py::object& sizes) {
        return unflatten(t, dim, dims_from_object(sizes, "unflatten"));
      },
      py::arg("dim"), py::arg("sizes"));
  method_and_function(
      tensor, m, "broadcast_to",
      [](const Tensor& t, const py::object& size) { return broadcast_to(t, dims_from_object(size, "broadcast_to")); },
      py::arg("size"));
  m.def("broadcast_tensors",
        [](const py::args& tensors) { return tuple_of(broadcast_tensors(tensors.cast<std::vector<Tensor>>())); });
  tensor.def_property_readonly("T", &Tensor::T)
      .def_property_readonly("mT", &Tensor::mT)
      .def("reshape_as", &Tensor::reshape_as, py::arg("other"));
  method_and_function(
      tensor, m, "tensor_split",
      [](const Tensor& t, const py::object& indices_or_sections, int64_t dim) {
        if (py::isinstance<Tensor>(indices_or_sections))
          return tuple_of(tensor_split(t, indices_or_sections.cast<Tensor>(), dim));
        return split_as_given(
            indices_or_sections, [&](int64_t sections) { return tensor_split(t, sections, dim); },
            [&](const std::vector<int64_t>& indices) { return tensor_split(t, indices, dim); });
      },
      py::arg("indices_or_sections"), py::arg("dim") = 0);
  using SplitBySections = std::vector<Tensor> (*)(const Tensor&, int64_t);
  using SplitByIndices = std::vector<Tensor> (*)(const Tensor&, const std::vector<int64_t>&);
  for (auto [name, by_sections, by_indices] : {std::tuple{"hsplit", SplitBySections(&hsplit), SplitByIndices(&hsplit)},
                                               {"vsplit", SplitBySections(&vsplit), SplitByIndices(&vsplit)},
                                               {"dsplit", SplitBySections(&dsplit), SplitByIndices(&dsplit)}})
    method_and_function(
        tensor, m, name,
        [by_sections, by_indices](const Tensor& t, const py::object& indices_or_sections) {
          return split_as_given(
              indices_or_sections, [&](int64_t sections) { return by_sections(t, sections); },
              [&](const std::vector<int64_t>& indices) { return by_indices(t, indices); });
        },
        py::arg("indices_or_sections"));
  using AtLeastOne = Tensor (*)(const Tensor&);
  using AtLeastMany = std::vector<Tensor> (*)(const std::vector<Tensor>&);
  for (auto [name, one, many] : {std::tuple{"atleast_1d", AtLeastOne(&atleast_1d), AtLeastMany(&atleast_1d)},
                                 {"atleast_2d", AtLeastOne(&atleast_2d), AtLeastMany(&atleast_2d)},
                                 {"atleast_3d", AtLeastOne(&atleast_3d), AtLeastMany(&atleast_3d)}})
    m.def(name, [one, many](const py::args& tensors) { return at_least(tensors, one, many); });

  // ---- pieces: a tuple of views, one node ----
  method_and_function(
      tensor, m, "unbind", [](const Tensor& t, int64_t dim) { return tuple_of(unbind(t, dim)); }, py::arg("dim") = 0);
  method_and_function(
      tensor, m, "split",
      [](const Tensor& t, const py::object& split_size, int64_t dim) {
        return tuple_of(split_by(t, split_size, dim, false));
      },
      py::arg("split_size_or_sections"), py::arg("dim") = 0);
  method_and_function(
      tensor, m, "split_with_sizes",
      [](const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
        return tuple_of(split_with_sizes(t, sizes, dim));
      },
      py::arg("split_sizes"), py::arg("dim") = 0);
  method_and_function(
      tensor, m, "chunk", [](const Tensor& t, int64_t chunks, int64_t dim) { return tuple_of(chunk(t, chunks, dim)); },
      py::arg("chunks"), py::arg("dim") = 0);
  method_and_function(
      tensor, m, "unsafe_split",
      [](const Tensor& t, const py::object& split_size, int64_t dim) {
        return tuple_of(split_by(t, split_size, dim, true));
      },
      py::arg("split_size"), py::arg("dim") = 0);
  method_and_function(
      tensor, m, "unsafe_split_with_sizes",
      [](const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
        return tuple_of(unsafe_split_with_sizes(t, sizes, dim));
      },
      py::arg("split_sizes"), py::arg("dim") = 0);
  method_and_function(
      tensor, m, "unsafe_chunk",
      [](const Tensor& t, int64_t chunks, int64_t dim) { return tuple_of(unsafe_chunk(t, chunks, dim)); },
      py::arg("chunks"), py::arg("dim") = 0);

  // ---- in-place views: each returns the object it was called on ----
  tensor.def("transpose_", &Tensor::transpose_, py::arg("dim0"), py::arg("dim1"), kSelf)
      .def("t_", &Tensor::t_, kSelf)
      .def(
          "squeeze_",
          [](Tensor& t, std::optional<int64_t> dim) -> Tensor& { return dim ? t.squeeze_(*dim) : t.squeeze_(); },
          py::arg("dim") = py::none(), kSelf)
      .def("unsqueeze_", &Tensor::unsqueeze_, py::arg("dim"), kSelf)
      .def("swapdims_", &Tensor::swapdims_, py::arg("dim0"), py::arg("dim1"), kSelf)
      .def("swapaxes_", &Tensor::swapaxes_, py::arg("axis0"), py::arg("axis1"), kSelf)
      .def(
          "as_strided_",
          [](Tensor& t, py::object size, py::object stride, int64_t storage_offset) -> Tensor& {
            return t.as_strided_(dims_from_object(size, "as_strided_"), dims_from_object(stride, "as_strided_"),
                                 storage_offset);
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = 0, kSelf);
}

}  // namespace ember::python
