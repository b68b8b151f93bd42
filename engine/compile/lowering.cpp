// The lowering table: one entry per op the compiler fuses. The element functions the formulas
// call (ember_exp, ember_sigmoid, ember_relu) are the generated file's prelude (codegen.cpp).
#include "lowering.h"

#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace ember::compiler {

std::string float_literal(double number) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, static_cast<float>(number)).ptr;
  std::string literal(text, end);
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return literal + "f";
}

namespace {

using capture::Argument;
using Lowered = Lowering::Kind;

bool is_value(const Argument& a) { return a.kind == Argument::Kind::Value; }
bool is_number(const Argument& a) { return a.kind == Argument::Kind::Number && std::isfinite(a.number); }

Lowering pointwise(std::string formula, std::vector<int> operands) {
  return {Lowered::Pointwise, std::move(formula), std::move(operands), ""};
}
Lowering none(std::string why) { return {Lowered::None, "", {}, std::move(why)}; }

// `$0 op $1` for (tensor, tensor, alpha) and `$0 op number` for (tensor, number).
Lowering binary(const std::vector<Argument>& a, const char* op) {
  if (a.size() >= 2 && is_value(a[0]) && is_value(a[1])) {
    if (a.size() == 3 && is_number(a[2]) && a[2].number != 1)
      return pointwise(str_cat("$0 ", op, " ", float_literal(a[2].number), " * $1"), {a[0].value, a[1].value});
    if (a.size() == 2 || (a.size() == 3 && is_number(a[2])))
      return pointwise(str_cat("$0 ", op, " $1"), {a[0].value, a[1].value});
  }
  if (a.size() == 2 && is_value(a[0]) && is_number(a[1]))
    return pointwise(str_cat("$0 ", op, " ", float_literal(a[1].number)), {a[0].value});
  return none("an overload with no lowering");
}

Lowering power(const std::vector<Argument>& a) {
  if (a.size() != 2 || !is_value(a[0]) || !is_number(a[1])) return none("an overload with no lowering");
  // ATen's special exponents, computed as its kernel (and ember's, kernels/element_math.h) does.
  const double e = a[1].number;
  const int x = a[0].value;
  if (e == 1) return pointwise("$0", {x});
  if (e == 2) return pointwise("$0 * $0", {x});
  if (e == 3) return pointwise("$0 * $0 * $0", {x});
  if (e == 0.5) return pointwise("std::sqrt($0)", {x});
  if (e == -0.5) return pointwise("1.0f / std::sqrt($0)", {x});
  if (e == -1) return pointwise("1.0f / $0", {x});
  if (e == -2) return pointwise("1.0f / ($0 * $0)", {x});
  return pointwise(str_cat("std::pow($0, ", float_literal(e), ")"), {x});
}

// sum or mean over `dims` of a value of `sizes`: over the last dimension (a row reduction) or over
// all the others (a column reduction), keepdim or not.
Lowering reduction(const capture::Graph& graph, const std::vector<Argument>& a, bool mean) {
  if (a.size() < 3 || !is_value(a[0]) || a[1].kind != Argument::Kind::Dims || a[2].kind != Argument::Kind::Flag)
    return none("a reduction over all elements");
  const Dims& sizes = graph.values[a[0].value].sizes;
  const int64_t rank = sizes.size();
  if (rank < 2) return none("a reduction of a 1-d tensor");
  std::set<int64_t> dims;
  for (int64_t d : a[1].dims) dims.insert(d < 0 ? d + rank : d);
  if (dims == std::set<int64_t>{rank - 1}) return {mean ? Lowered::RowMean : Lowered::RowSum, "", {a[0].value}, ""};
  std::set<int64_t> leading;
  for (int64_t d = 0; d + 1 < rank; ++d) leading.insert(d);
  if (dims == leading) return {mean ? Lowered::ColumnMean : Lowered::ColumnSum, "", {a[0].value}, ""};
  return none("a reduction over other dimensions");
}

const std::set<std::string> views = {"aten::view",    "aten::reshape",   "aten::_reshape_alias", "aten::_unsafe_view",
                                     "aten::squeeze", "aten::unsqueeze", "aten::expand",         "aten::alias"};
const std::set<std::string> reordering_views = {"aten::t",     "aten::transpose", "aten::permute",    "aten::select",
                                                "aten::slice", "aten::narrow",    "aten::as_strided", "aten::detach"};
const std::set<std::string> products = {"aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear"};

}  // namespace

bool keeps_elements_in_place(const std::string& op) { return views.count(op) != 0; }

Lowering lower(const capture::Graph& graph, const capture::OpNode& node) {
  const std::string& op = node.op;
  const auto& a = node.arguments;
  if (products.count(op)) return {Lowered::Extern, "", {}, ""};
  if (reordering_views.count(op)) return {Lowered::Eager, "", {}, ""};
  if (node.in_place) return none("an in-place op");
  for (int output : node.outputs)
    if (output < 0 || graph.values[output].dtype != kFloat32 || !graph.values[output].device.is_cpu())
      return none("a result that is not a float32 CPU tensor");
  for (const Argument& argument : a)
    if (is_value(argument) &&
        (graph.values[argument.value].dtype != kFloat32 || !graph.values[argument.value].device.is_cpu()))
      return none("an operand that is not a float32 CPU tensor");
  if (views.count(op)) {
    if (a.empty() || !is_value(a[0])) return none("a view with no lowering");
    return {Lowered::View, "", {a[0].value}, ""};
  }
  // An in-place op reaches here only when the capture recorded it as a functional one (capture.h).
  if (op == "aten::add" || op == "aten::add_") return binary(a, "+");
  if (op == "aten::sub" || op == "aten::sub_") return binary(a, "-");
  if (op == "aten::mul" || op == "aten::mul_") return binary(a, "*");
  if (op == "aten::div" || op == "aten::div_") return binary(a, "/");
  if (op == "aten::fill_" && a.size() == 2 && is_number(a[1])) return pointwise(float_literal(a[1].number), {});
  if (op == "aten::zero_") return pointwise("0.0f", {});
  if (op == "aten::rsub" && a.size() >= 2 && is_value(a[0]) && is_number(a[1]))
    return pointwise(str_cat(float_literal(a[1].number), " - $0"), {a[0].value});
  if (op == "aten::pow") return power(a);
  if (op == "aten::sum") return reduction(graph, a, false);
  if (op == "aten::mean") return reduction(graph, a, true);
  if (op == "aten::threshold_backward" && a.size() == 3 && is_value(a[0]) && is_value(a[1]) && is_number(a[2]))
    return pointwise(str_cat("$1 <= ", float_literal(a[2].number), " ? 0.0f : $0"), {a[0].value, a[1].value});
  if (a.size() == 1 && is_value(a[0])) {
    static const std::map<std::string, std::string> unary = {
        {"aten::neg", "-$0"},
        {"aten::exp", "ember_exp($0)"},
        {"aten::log", "std::log($0)"},
        {"aten::sqrt", "std::sqrt($0)"},
        {"aten::sigmoid", "ember_sigmoid($0)"},
        {"aten::tanh", "std::tanh($0)"},
        {"aten::relu", "ember_relu($0)"},
        {"aten::abs", "std::fabs($0)"},
        {"aten::reciprocal", "1.0f / $0"},
    };
    if (auto found = unary.find(op); found != unary.end()) return pointwise(found->second, {a[0].value});
  }
  return none("no lowering");
}

}  // namespace ember::compiler
