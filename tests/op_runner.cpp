// Runs one op of tests/fixtures/ops.json with ember, the way the fixture script ran it with PyTorch.
#include "op_runner.h"

using namespace ember;
using fixture::json;

Scalar fixture::scalar_arg(const json& v) {
  if (v.is_number_integer()) return Scalar(v.get<int64_t>());
  if (v.is_boolean()) return Scalar(v.get<bool>());
  return Scalar(v.get<double>());
}

namespace {

Reduction reduction_arg(const json& args) {
  const std::string r = args.value("reduction", "mean");
  return r == "none" ? Reduction::None : r == "sum" ? Reduction::Sum : Reduction::Mean;
}

}  // namespace

std::vector<Tensor> fixture::run_op(const std::string& op, const std::vector<Tensor>& in, const json& args) {
  auto one = [](Tensor t) { return std::vector<Tensor>{t}; };
  if (op == "neg") return one(neg(in[0]));
  if (op == "exp") return one(exp(in[0]));
  if (op == "log") return one(log(in[0]));
  if (op == "sqrt") return one(sqrt(in[0]));
  if (op == "relu") return one(relu(in[0]));
  if (op == "sigmoid") return one(sigmoid(in[0]));
  if (op == "tanh") return one(tanh(in[0]));
  if (op == "pow") return one(pow(in[0], scalar_arg(args["exponent"])));
  if (op == "add") return one(add(in[0], in[1], args.contains("alpha") ? scalar_arg(args["alpha"]) : Scalar(1)));
  if (op == "sub") return one(sub(in[0], in[1], args.contains("alpha") ? scalar_arg(args["alpha"]) : Scalar(1)));
  if (op == "mul") return one(mul(in[0], in[1]));
  if (op == "div") return one(div(in[0], in[1]));
  if (op == "add_scalar") return one(add(in[0], scalar_arg(args["other"])));
  if (op == "sub_scalar") return one(sub(in[0], scalar_arg(args["other"])));
  if (op == "mul_scalar") return one(mul(in[0], scalar_arg(args["other"])));
  if (op == "div_scalar") return one(div(in[0], scalar_arg(args["other"])));
  if (op == "eq") return one(eq(in[0], in[1]));
  if (op == "ne") return one(ne(in[0], in[1]));
  if (op == "lt") return one(lt(in[0], in[1]));
  if (op == "le") return one(le(in[0], in[1]));
  if (op == "gt") return one(gt(in[0], in[1]));
  if (op == "ge") return one(ge(in[0], in[1]));
  if (op == "gt_scalar") return one(gt(in[0], scalar_arg(args["other"])));
  if (op == "where") return one(where(in[0], in[1], in[2]));
  if (op == "sum" || op == "mean") {
    const bool all = args["dims"].is_null();
    const bool keepdim = args.value("keepdim", false);
    const Dims dims = all ? Dims() : dims_arg(args["dims"]);
    if (op == "sum") return one(all && !keepdim ? sum(in[0]) : sum(in[0], dims, keepdim));
    return one(all && !keepdim ? mean(in[0]) : mean(in[0], dims, keepdim));
  }
  if (op == "max_all") return one(max(in[0]));
  if (op == "min_all") return one(min(in[0]));
  if (op == "max_dim" || op == "min_dim") {
    ValuesIndices r =
        op == "max_dim" ? max(in[0], args["dim"], args["keepdim"]) : min(in[0], args["dim"], args["keepdim"]);
    return {r.values, r.indices};
  }
  if (op == "argmax") {
    std::optional<int64_t> dim;
    if (!args["dim"].is_null()) dim = args["dim"].get<int64_t>();
    return one(argmax(in[0], dim, args.value("keepdim", false)));
  }
  if (op == "mm") return one(mm(in[0], in[1]));
  if (op == "addmm") return one(addmm(in[0], in[1], in[2], scalar_arg(args["beta"]), scalar_arg(args["alpha"])));
  if (op == "bmm") return one(bmm(in[0], in[1]));
  if (op == "matmul") return one(matmul(in[0], in[1]));
  if (op == "linear") return one(linear(in[0], in[1], in.size() > 2 ? in[2] : Tensor()));
  if (op == "softmax") return one(softmax(in[0], args["dim"]));
  if (op == "log_softmax") return one(log_softmax(in[0], args["dim"]));
  if (op == "layer_norm")
    return one(layer_norm(in[0], dims_arg(args["normalized_shape"]), in.size() > 1 ? in[1] : Tensor(),
                          in.size() > 2 ? in[2] : Tensor(), args["eps"]));
  if (op == "mse_loss") return one(mse_loss(in[0], in[1], reduction_arg(args)));
  if (op == "cross_entropy")
    return one(cross_entropy(in[0], in[1], reduction_arg(args), args.value("ignore_index", int64_t{-100})));
  if (op == "cat") return one(cat(in, args["dim"]));
  if (op == "stack") return one(stack(in, args["dim"]));
  if (op == "to") return one(in[0].to(fixture::parse_dtype(args["dtype"])));
  if (op == "identity") return one(in[0]);
  if (op == "contiguous") return one(in[0].contiguous());
  if (op == "clone") return one(in[0].clone());
  if (op == "reshape") return one(in[0].reshape(dims_arg(args["shape"])));
  if (op == "flatten") return one(in[0].flatten(args["start"], args["end"]));
  throw std::runtime_error("test has no runner for op " + op);
}
