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
  tensor.def("unfold", &Tensor::unfold, py::arg("dimension"), py::arg("size"), py::arg("step"));

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

  // ---- a view, then a copy of it: torch.permute_copy and its kind (functions only) ----
  auto sizes_of = [](const char* name) {
    return [name](const py::object& sizes) { return dims_from_object(sizes, name); };
  };
  m.def(
      "expand_copy",
      [sizes = sizes_of("expand_copy")](const Tensor& t, const py::object& size, bool implicit) {
        return expand_copy(t, sizes(size), implicit);
      },
      py::arg("input"), py::arg("size"), py::kw_only(), py::arg("implicit") = false);
  m.def(
      "permute_copy",
      [sizes = sizes_of("permute_copy")](const Tensor& t, const py::object& dims) {
        return permute_copy(t, sizes(dims));
      },
      py::arg("input"), py::arg("dims"));
  m.def(
      "view_copy", [](const Tensor& t, DType dtype) { return view_copy(t, dtype); }, py::arg("input"),
      py::arg("dtype"));
  m.def(
      "view_copy",
      [sizes = sizes_of("view_copy")](const Tensor& t, const py::object& size) { return view_copy(t, sizes(size)); },
      py::arg("input"), py::arg("size"));
  m.def(
      "_reshape_alias_copy",
      [sizes = sizes_of("_reshape_alias_copy")](const Tensor& t, const py::object& size, const py::object& stride) {
        return _reshape_alias_copy(t, sizes(size), sizes(stride));
      },
      py::arg("input"), py::arg("size"), py::arg("stride"));
  method_and_function(tensor, m, "narrow_copy", &narrow_copy, py::arg("dim"), py::arg("start"), py::arg("length"));
  m.def("select_copy", &select_copy, py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def(
      "slice_copy",
      [](const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
        return slice_copy(t, dim, start.value_or(0), end.value_or(INT64_MAX), step);
      },
      py::arg("input"), py::arg("dim") = 0, py::arg("start") = py::none(), py::arg("end") = py::none(),
      py::arg("step") = 1);
  m.def("transpose_copy", &transpose_copy, py::arg("input"), py::arg("dim0"), py::arg("dim1"));
  m.def("t_copy", &t_copy, py::arg("input"));
  m.def(
      "squeeze_copy",
      [](const Tensor& t, std::optional<int64_t> dim) { return dim ? squeeze_copy(t, *dim) : squeeze_copy(t); },
      py::arg("input"), py::arg("dim") = py::none());
  m.def("unsqueeze_copy", &unsqueeze_copy, py::arg("input"), py::arg("dim"));
  m.def(
      "as_strided_copy",
      [sizes = sizes_of("as_strided_copy")](const Tensor& t, const py::object& size, const py::object& stride,
                                            std::optional<int64_t> storage_offset) {
        return as_strided_copy(t, sizes(size), sizes(stride), storage_offset.value_or(t.storage_offset()));
      },
      py::arg("input"), py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  m.def("detach_copy", &detach_copy, py::arg("input"));
  m.def("alias_copy", &alias_copy, py::arg("input"));
  m.def("diagonal_copy", &diagonal_copy, py::arg("input"), py::arg("offset") = 0, py::arg("dim1") = 0,
        py::arg("dim2") = 1);
  m.def("unfold_copy", &unfold_copy, py::arg("input"), py::arg("dimension"), py::arg("size"), py::arg("step"));
  m.def(
      "unbind_copy", [](const Tensor& t, int64_t dim) { return tuple_of(unbind_copy(t, dim)); }, py::arg("input"),
      py::arg("dim") = 0);
  m.def(
      "split_copy",
      [](const Tensor& t, int64_t split_size, int64_t dim) { return tuple_of(split_copy(t, split_size, dim)); },
      py::arg("input"), py::arg("split_size"), py::arg("dim") = 0);
  m.def(
      "split_with_sizes_copy",
      [](const Tensor& t, const std::vector<int64_t>& sizes, int64_t dim) {
        return tuple_of(split_with_sizes_copy(t, sizes, dim));
      },
      py::arg("input"), py::arg("split_sizes"), py::arg("dim") = 0);

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
