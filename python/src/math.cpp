// The math ops of ops.h that torch offers both as a Tensor method and as a function (the unary and
// binary ops of core/op_list.h, clamp, addcmul, all, var_mean, ...), bound through both doors at once; the arithmetic
// with an `out=` tensor; the in-place math the Tensor methods add (exp_, relu_); and the *_like factories with torch's
// keyword arguments (dtype and device default to the input's).
#include "bindings.h"

namespace ember::python {

namespace {

using OptDType = std::optional<DType>;
using OptDevice = std::optional<Device>;

// The options of a *_like factory: only what is given replaces the input's.
Options like_options(OptDType dtype, OptDevice device, bool requires_grad) {
  Options options;
  if (dtype) options.dtype(*dtype);
  if (device) options.device(*device);
  return options.requires_grad(requires_grad);
}

// a (op) b, into `out` when given (torch's out= keyword).
template <typename Plain, typename Into>
Tensor with_out(const Tensor& a, const Tensor& b, std::optional<Tensor> out, Plain plain, Into into) {
  if (!out) return plain(a, b);
  into(*out, a, b);
  return *out;
}

void bind_binary(py::module_& m) {
  m.def(
      "add",
      [](const Tensor& a, const Tensor& b, Scalar alpha, std::optional<Tensor> out) {
        return with_out(
            a, b, out, [&](const Tensor& x, const Tensor& y) { return add(x, y, alpha); },
            [&](Tensor& o, const Tensor& x, const Tensor& y) { add_out(o, x, y, alpha); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1, py::arg("out") = py::none());
  m.def(
      "sub",
      [](const Tensor& a, const Tensor& b, Scalar alpha, std::optional<Tensor> out) {
        return with_out(
            a, b, out, [&](const Tensor& x, const Tensor& y) { return sub(x, y, alpha); },
            [&](Tensor& o, const Tensor& x, const Tensor& y) { sub_out(o, x, y, alpha); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1, py::arg("out") = py::none());
  m.def(
      "mul",
      [](const Tensor& a, const Tensor& b, std::optional<Tensor> out) {
        return with_out(a, b, out, py::overload_cast<const Tensor&, const Tensor&>(&mul),
                        [](Tensor& o, const Tensor& x, const Tensor& y) { mul_out(o, x, y); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("out") = py::none());
  m.def(
      "div",
      [](const Tensor& a, const Tensor& b, std::optional<Tensor> out) {
        return with_out(a, b, out, py::overload_cast<const Tensor&, const Tensor&>(&div),
                        [](Tensor& o, const Tensor& x, const Tensor& y) { div_out(o, x, y); });
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("out") = py::none());
  m.def(
      "mul", [](const Tensor& a, Scalar b) { return wrapped_number::mul(a, b); }, py::arg("input"), py::arg("other"));
  m.def(
      "div", [](const Tensor& a, Scalar b) { return wrapped_number::div(a, b); }, py::arg("input"), py::arg("other"));
}

}  // namespace

void bind_math(py::module_& m, TensorClass& tensor) {
  bind_binary(m);
  tensor
      .def("addcmul_", &Tensor::addcmul_, py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1,
           py::return_value_policy::reference)
      .def("addcdiv_", &Tensor::addcdiv_, py::arg("tensor1"), py::arg("tensor2"), py::kw_only(), py::arg("value") = 1,
           py::return_value_policy::reference)
      .def("exp_", &Tensor::exp_, py::return_value_policy::reference)
      .def("relu_", &Tensor::relu_, py::return_value_policy::reference);

  // The ops of core/op_list.h: torch.exp(input) and Tensor.exp(), torch.maximum(input, other), ...
#define EMBER_BIND_UNARY(name, ...) method_and_function(tensor, m, #name, &ember::name);
#define EMBER_BIND_BINARY(name)                                                                        \
  method_and_function(tensor, m, #name, py::overload_cast<const Tensor&, const Tensor&>(&ember::name), \
                      py::arg("other"));
  EMBER_UNARY_OPS(EMBER_BIND_UNARY)
  EMBER_BINARY_OPS(EMBER_BIND_BINARY)
#undef EMBER_BIND_UNARY
#undef EMBER_BIND_BINARY
  // The Scalar overloads of two listed ops: torch.remainder(x, 2) records RemainderBackward0.
  tensor.def("floor_divide", py::overload_cast<const Tensor&, Scalar>(&floor_divide), py::arg("other"));
  m.def("floor_divide", py::overload_cast<const Tensor&, Scalar>(&floor_divide), py::arg("input"), py::arg("other"));
  tensor.def("remainder", py::overload_cast<const Tensor&, Scalar>(&remainder), py::arg("other"));
  m.def("remainder", py::overload_cast<const Tensor&, Scalar>(&remainder), py::arg("input"), py::arg("other"));
  m.def("result_type", py::overload_cast<const Tensor&, const Tensor&>(&result_type), py::arg("tensor1"),
        py::arg("tensor2"));
  m.def("result_type", py::overload_cast<const Tensor&, Scalar>(&result_type), py::arg("tensor"), py::arg("other"));
  m.def("promote_types", &promote_types, py::arg("type1"), py::arg("type2"));
  method_and_function(tensor, m, "clamp", &clamp, py::arg("min") = py::none(), py::arg("max") = py::none());
  method_and_function(tensor, m, "clamp_min", &clamp_min, py::arg("min"));
  method_and_function(tensor, m, "clamp_max", &clamp_max, py::arg("max"));
  method_and_function(tensor, m, "addcmul", &addcmul, py::arg("tensor1"), py::arg("tensor2"), py::kw_only(),
                      py::arg("value") = 1);
  method_and_function(tensor, m, "addcdiv", &addcdiv, py::arg("tensor1"), py::arg("tensor2"), py::kw_only(),
                      py::arg("value") = 1);
  method_and_function(
      tensor, m, "all",
      [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return dim ? all(t, *dim, keepdim) : all(t); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  method_and_function(
      tensor, m, "norm", [](const Tensor& t, Scalar p) { return norm(t, p); }, py::arg("p") = 2);
  method_and_function(
      tensor, m, "any",
      [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) { return dim ? any(t, *dim, keepdim) : any(t); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def(
      "var_mean",
      [](const Tensor& t, py::object dim, bool unbiased, bool keepdim) {
        std::optional<Dims> dims;
        if (!dim.is_none()) dims = dims_from_object(dim, "var_mean");
        auto [var, mean] = var_mean(t, dims, unbiased, keepdim);
        return py::make_tuple(var, mean);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = true, py::arg("keepdim") = false);

  // The *_like factories.
  using LikeFactory = Tensor (*)(const Tensor&, Options);
  const std::pair<const char*, LikeFactory> like_factories[] = {
      {"zeros_like", [](const Tensor& t, Options o) { return zeros_like(t, o); }},
      {"ones_like", [](const Tensor& t, Options o) { return ones_like(t, o); }},
      {"empty_like", [](const Tensor& t, Options o) { return empty_like(t, o); }},
      {"rand_like", [](const Tensor& t, Options o) { return rand_like(t, o); }},
      {"randn_like", [](const Tensor& t, Options o) { return randn_like(t, o); }}};
  for (auto [name, factory] : like_factories)
    m.def(
        name,
        [factory](const Tensor& t, OptDType dtype, OptDevice device, bool requires_grad) {
          return factory(t, like_options(dtype, device, requires_grad));
        },
        py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false);
  m.def(
      "full_like",
      [](const Tensor& t, Scalar fill_value, OptDType dtype, OptDevice device, bool requires_grad) {
        return full_like(t, fill_value, like_options(dtype, device, requires_grad));
      },
      py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false);
}

}  // namespace ember::python
