// Runs one op of tests/fixtures/ops.json with ember, the way the fixture script ran it with PyTorch:
// one entry per op name, each the ember call that tools/fixtures/ops_cases.py's OPS makes in torch.
#include "op_runner.h"

#include <optional>
#include <stdexcept>

using namespace ember;
using fixture::Inputs;
using fixture::json;
using fixture::scalar_arg;

Scalar fixture::scalar_arg(const json& v) {
  if (v.is_number_integer()) return Scalar(v.get<int64_t>());
  if (v.is_boolean()) return Scalar(v.get<bool>());
  return Scalar(fixture::number(v));  // "nan", "inf" and "-inf" too
}

namespace {

using Outputs = std::vector<Tensor>;

Outputs one(const Tensor& t) { return {t}; }

Outputs values_and_indices(const ValuesIndices& r) { return {r.values, r.indices}; }

Scalar alpha_arg(const json& args) { return args.contains("alpha") ? scalar_arg(args["alpha"]) : Scalar(1); }
Scalar value_arg(const json& args) { return args.contains("value") ? scalar_arg(args["value"]) : Scalar(1); }

// A clamp bound: null (left out), a number, or "nan"/"inf"/"-inf" (JSON has no NaN).
std::optional<Scalar> bound_arg(const json& v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return Scalar(fixture::number(v));
  return scalar_arg(v);
}

Reduction reduction_arg(const json& args) {
  const std::string r = args.value("reduction", "mean");
  return r == "none" ? Reduction::None : r == "sum" ? Reduction::Sum : Reduction::Mean;
}

// sum and mean: to a 0-d tensor over everything when "dims" is null and "keepdim" false (PyTorch's
// sum(x)), else over "dims" (every dim when null).
struct ReductionArgs {
  bool whole;
  Dims dims;
  bool keepdim;
};

ReductionArgs reduction_args(const json& args) {
  const bool all = args["dims"].is_null();
  const bool keepdim = args.value("keepdim", false);
  return {all && !keepdim, all ? Dims() : fixture::dims_arg(args["dims"]), keepdim};
}

// An op's pieces joined back along `dim`, each scaled by its position (ops_cases_splits.py's _joined).
Tensor joined(const std::vector<Tensor>& pieces, int64_t dim, bool stacked = false) {
  std::vector<Tensor> scaled;
  for (size_t i = 0; i < pieces.size(); ++i) scaled.push_back(pieces[i] * static_cast<int64_t>(i + 1));
  return stacked ? stack(scaled, dim) : cat(scaled, dim);
}

std::vector<int64_t> sizes_arg(const json& v) { return v.get<std::vector<int64_t>>(); }

// var_mean's dims: null for all of them.
std::optional<Dims> optional_dims(const json& v) {
  if (v.is_null()) return std::nullopt;
  return fixture::dims_arg(v);
}

// all and any: over everything when "dim" is null.
template <typename Whole, typename Along>
Outputs logical(const Inputs& in, const json& args, Whole whole, Along along) {
  return one(args["dim"].is_null() ? whole(in[0]) : along(in[0], args["dim"].get<int64_t>(), args["keepdim"]));
}

// An optional tensor input: the case's input `i` when it has one, else an undefined tensor.
Tensor optional_input(const Inputs& in, size_t i) { return in.size() > i ? in[i] : Tensor(); }

}  // namespace

const std::map<std::string, fixture::OpFunction>& fixture::op_table() {
  // The ops of core/op_list.h, by their torch names.
#define EMBER_UNARY_ENTRY(name, ...) {#name, [](const Inputs& in, const json&) { return one(name(in[0])); }},
#define EMBER_BINARY_ENTRY(name) {#name, [](const Inputs& in, const json&) { return one(name(in[0], in[1])); }},
  static const std::map<std::string, OpFunction> table{
      EMBER_UNARY_OPS(EMBER_UNARY_ENTRY) EMBER_BINARY_OPS(EMBER_BINARY_ENTRY)
      // Element-wise: unary, binary (alpha as PyTorch's keyword), with a number, comparisons, where.
      {"pow", [](const Inputs& in, const json& args) { return one(pow(in[0], scalar_arg(args["exponent"]))); }},
      {"add", [](const Inputs& in, const json& args) { return one(add(in[0], in[1], alpha_arg(args))); }},
      {"sub", [](const Inputs& in, const json& args) { return one(sub(in[0], in[1], alpha_arg(args))); }},
      {"mul", [](const Inputs& in, const json&) { return one(mul(in[0], in[1])); }},
      {"div", [](const Inputs& in, const json&) { return one(div(in[0], in[1])); }},
      {"add_scalar",
       [](const Inputs& in, const json& args) { return one(wrapped_number::add(in[0], scalar_arg(args["other"]))); }},
      {"sub_scalar",
       [](const Inputs& in, const json& args) { return one(wrapped_number::sub(in[0], scalar_arg(args["other"]))); }},
      {"mul_scalar",
       [](const Inputs& in, const json& args) { return one(wrapped_number::mul(in[0], scalar_arg(args["other"]))); }},
      {"div_scalar",
       [](const Inputs& in, const json& args) { return one(wrapped_number::div(in[0], scalar_arg(args["other"]))); }},
      {"eq", [](const Inputs& in, const json&) { return one(eq(in[0], in[1])); }},
      {"ne", [](const Inputs& in, const json&) { return one(ne(in[0], in[1])); }},
      {"lt", [](const Inputs& in, const json&) { return one(lt(in[0], in[1])); }},
      {"le", [](const Inputs& in, const json&) { return one(le(in[0], in[1])); }},
      {"gt", [](const Inputs& in, const json&) { return one(gt(in[0], in[1])); }},
      {"ge", [](const Inputs& in, const json&) { return one(ge(in[0], in[1])); }},
      {"gt_scalar", [](const Inputs& in, const json& args) { return one(gt(in[0], scalar_arg(args["other"]))); }},
      {"where", [](const Inputs& in, const json&) { return one(where(in[0], in[1], in[2])); }},
      {"clamp", [](const Inputs& in,
                   const json& args) { return one(clamp(in[0], bound_arg(args["min"]), bound_arg(args["max"]))); }},
      {"clamp_min", [](const Inputs& in, const json& args) { return one(clamp_min(in[0], *bound_arg(args["min"]))); }},
      {"clamp_max", [](const Inputs& in, const json& args) { return one(clamp_max(in[0], *bound_arg(args["max"]))); }},
      {"addcmul",
       [](const Inputs& in, const json& args) { return one(addcmul(in[0], in[1], in[2], value_arg(args))); }},
      {"addcdiv",
       [](const Inputs& in, const json& args) { return one(addcdiv(in[0], in[1], in[2], value_arg(args))); }},

      // Reductions.
      {"sum",
       [](const Inputs& in, const json& args) {
         const ReductionArgs r = reduction_args(args);
         return one(r.whole ? sum(in[0]) : sum(in[0], r.dims, r.keepdim));
       }},
      {"mean",
       [](const Inputs& in, const json& args) {
         const ReductionArgs r = reduction_args(args);
         return one(r.whole ? mean(in[0]) : mean(in[0], r.dims, r.keepdim));
       }},
      {"max_all", [](const Inputs& in, const json&) { return one(max(in[0])); }},
      {"min_all", [](const Inputs& in, const json&) { return one(min(in[0])); }},
      {"max_dim",
       [](const Inputs& in, const json& args) { return values_and_indices(max(in[0], args["dim"], args["keepdim"])); }},
      {"min_dim",
       [](const Inputs& in, const json& args) { return values_and_indices(min(in[0], args["dim"], args["keepdim"])); }},
      {"argmax",
       [](const Inputs& in, const json& args) {
         std::optional<int64_t> dim;
         if (!args["dim"].is_null()) dim = args["dim"].get<int64_t>();
         return one(argmax(in[0], dim, args.value("keepdim", false)));
       }},

      // Matrix products and the nn functions.
      {"mm", [](const Inputs& in, const json&) { return one(mm(in[0], in[1])); }},
      {"addmm",
       [](const Inputs& in, const json& args) {
         return one(addmm(in[0], in[1], in[2], scalar_arg(args["beta"]), scalar_arg(args["alpha"])));
       }},
      {"bmm", [](const Inputs& in, const json&) { return one(bmm(in[0], in[1])); }},
      {"matmul", [](const Inputs& in, const json&) { return one(matmul(in[0], in[1])); }},
      {"linear", [](const Inputs& in, const json&) { return one(linear(in[0], in[1], optional_input(in, 2))); }},
      {"softmax", [](const Inputs& in, const json& args) { return one(softmax(in[0], args["dim"])); }},
      {"log_softmax", [](const Inputs& in, const json& args) { return one(log_softmax(in[0], args["dim"])); }},
      {"layer_norm",
       [](const Inputs& in, const json& args) {
         return one(layer_norm(in[0], dims_arg(args["normalized_shape"]), optional_input(in, 1), optional_input(in, 2),
                               args["eps"]));
       }},
      {"mse_loss", [](const Inputs& in, const json& args) { return one(mse_loss(in[0], in[1], reduction_arg(args))); }},
      {"cross_entropy",
       [](const Inputs& in, const json& args) {
         return one(
             cross_entropy(in[0], in[1], Tensor(), reduction_arg(args), args.value("ignore_index", int64_t{-100})));
       }},

      // Joining, conversion, copies and shape.
      {"cat", [](const Inputs& in, const json& args) { return one(cat(in, args["dim"])); }},
      {"stack", [](const Inputs& in, const json& args) { return one(stack(in, args["dim"])); }},
      {"to", [](const Inputs& in, const json& args) { return one(in[0].to(fixture::parse_dtype(args["dtype"]))); }},
      {"identity", [](const Inputs& in, const json&) { return one(in[0]); }},
      {"contiguous", [](const Inputs& in, const json&) { return one(in[0].contiguous()); }},
      {"clone", [](const Inputs& in, const json&) { return one(in[0].clone()); }},
      {"reshape", [](const Inputs& in, const json& args) { return one(in[0].reshape(dims_arg(args["shape"]))); }},
      {"flatten", [](const Inputs& in, const json& args) { return one(in[0].flatten(args["start"], args["end"])); }},
      {"movedim",
       [](const Inputs& in, const json& args) {
         return one(movedim(in[0], dims_arg(args["source"]), dims_arg(args["destination"])));
       }},
      {"swapaxes",
       [](const Inputs& in, const json& args) { return one(swapaxes(in[0], args["axis0"], args["axis1"])); }},
      {"numpy_T", [](const Inputs& in, const json&) { return one(in[0].T()); }},
      {"unflatten",
       [](const Inputs& in, const json& args) { return one(in[0].unflatten(args["dim"], dims_arg(args["sizes"]))); }},
      {"broadcast_to",
       [](const Inputs& in, const json& args) { return one(broadcast_to(in[0], dims_arg(args["size"]))); }},
      {"tensor_split",
       [](const Inputs& in, const json& args) {
         return tensor_split(in[0], args["sections"].get<int64_t>(), args["dim"].get<int64_t>());
       }},
      {"atleast_3d", [](const Inputs& in, const json&) { return one(atleast_3d(in[0])); }},

      // Pieces, in-place views and in-place math that saves its result (ops_cases_splits.py).
      {"unbind",
       [](const Inputs& in, const json& args) { return one(joined(unbind(in[0], args["dim"]), args["dim"], true)); }},
      {"unbind_piece",
       [](const Inputs& in, const json& args) { return one(unbind(in[0], args["dim"])[args["piece"]]); }},
      {"split",
       [](const Inputs& in, const json& args) {
         return one(joined(split(in[0], args["split_size"], args["dim"]), args["dim"]));
       }},
      {"split_piece",
       [](const Inputs& in, const json& args) {
         return one(split(in[0], args["split_size"], args["dim"])[args["piece"]]);
       }},
      {"split_with_sizes",
       [](const Inputs& in, const json& args) {
         return one(joined(split_with_sizes(in[0], sizes_arg(args["split_sizes"]), args["dim"]), args["dim"]));
       }},
      {"chunk", [](const Inputs& in,
                   const json& args) { return one(joined(chunk(in[0], args["chunks"], args["dim"]), args["dim"])); }},
      {"unsafe_split",
       [](const Inputs& in, const json& args) {
         return one(joined(unsafe_split(in[0], args["split_size"], args["dim"]), args["dim"]));
       }},
      {"unsafe_split_with_sizes",
       [](const Inputs& in, const json& args) {
         return one(joined(unsafe_split_with_sizes(in[0], sizes_arg(args["split_sizes"]), args["dim"]), args["dim"]));
       }},
      {"unsafe_chunk",
       [](const Inputs& in, const json& args) {
         return one(joined(unsafe_chunk(in[0], args["chunks"], args["dim"]), args["dim"]));
       }},
      {"diagonal", [](const Inputs& in,
                      const json& args) { return one(diagonal(in[0], args["offset"], args["dim1"], args["dim2"])); }},
      {"view_as", [](const Inputs& in, const json&) { return one(in[0].view_as(in[1])); }},
      {"transpose_",
       [](const Inputs& in, const json& args) { return one(in[0].clone().transpose_(args["dim0"], args["dim1"])); }},
      {"t_", [](const Inputs& in, const json&) { return one(in[0].clone().t_()); }},
      {"squeeze_",
       [](const Inputs& in, const json& args) {
         Tensor out = in[0].clone();
         return one(args["dim"].is_null() ? out.squeeze_() : out.squeeze_(args["dim"].get<int64_t>()));
       }},
      {"unsqueeze_", [](const Inputs& in, const json& args) { return one(in[0].clone().unsqueeze_(args["dim"])); }},
      {"swapdims_",
       [](const Inputs& in, const json& args) { return one(in[0].clone().swapdims_(args["dim0"], args["dim1"])); }},
      {"as_strided_",
       [](const Inputs& in, const json& args) {
         return one(in[0].clone().as_strided_(dims_arg(args["size"]), dims_arg(args["stride"]), args["offset"]));
       }},
      {"exp_", [](const Inputs& in, const json&) { return one(in[0].clone().exp_()); }},
      {"relu_", [](const Inputs& in, const json&) { return one(in[0].clone().relu_()); }},
      {"var_mean",
       [](const Inputs& in, const json& args) {
         auto [var, mean] = var_mean(in[0], optional_dims(args["dim"]), args["unbiased"], args["keepdim"]);
         return Outputs{var, mean};
       }},
      {"var_plus_mean",
       [](const Inputs& in, const json& args) {
         auto [var, mean] = var_mean(in[0], optional_dims(args["dim"]), args["unbiased"], args["keepdim"]);
         return one(var * 1.0 + mean * 3.0);
       }},
      {"all",
       [](const Inputs& in, const json& args) {
         return logical(
             in, args, [](const Tensor& t) { return all(t); },
             [](const Tensor& t, int64_t d, bool k) { return all(t, d, k); });
       }},
      {"any",
       [](const Inputs& in, const json& args) {
         return logical(
             in, args, [](const Tensor& t) { return any(t); },
             [](const Tensor& t, int64_t d, bool k) { return any(t, d, k); });
       }},
  };
  return table;
}

std::vector<Tensor> fixture::run_op(const std::string& op, const Inputs& inputs, const json& args) {
  const auto entry = op_table().find(op);
  if (entry == op_table().end()) throw std::runtime_error("test has no runner for op " + op);
  return entry->second(inputs, args);
}
