// Runs a replay.json program through ember the way tools/fixtures/replay_program.py ran it through
// PyTorch, comparing after every statement (see replay_interpreter.h and tools/fixtures/replay.py's
// docstring).
#include "replay_interpreter.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "op_runner.h"

using namespace ember;
using fixture::json;

namespace replay {

namespace {

// One statement's ember call; the tensor it gives (undefined for backward).
Tensor run_statement(const std::string& op, const json& args, const std::vector<Tensor>& in) {
  if (op == "new") {
    Tensor t = fixture::make_base(args["t"]);
    return args.value("rg", 0) ? t.requires_grad_() : t;
  }
  if (op == "view") return fixture::apply_view_step(in[0], args["step"]);
  if (op == "add_" || op == "sub_" || op == "mul_" || op == "div_") {
    Tensor target = in[0];
    const bool by_tensor = in.size() > 1;
    const Scalar other = by_tensor ? Scalar(0) : fixture::scalar_arg(args["other"]);
    // The programs are Python's: a number is a wrapped number (AddBackward0, not C++'s AddBackward1).
    if (op == "add_") by_tensor ? target.add_(in[1]) : wrapped_number::add_(target, other);
    if (op == "sub_") by_tensor ? target.sub_(in[1]) : wrapped_number::sub_(target, other);
    if (op == "mul_") by_tensor ? target.mul_(in[1]) : wrapped_number::mul_(target, other);
    if (op == "div_") by_tensor ? target.div_(in[1]) : wrapped_number::div_(target, other);
    return target;
  }
  if (op == "zero_") return Tensor(in[0]).zero_();
  if (op == "fill_") return Tensor(in[0]).fill_(fixture::scalar_arg(args["value"]));
  if (op == "copy_") return Tensor(in[0]).copy_(in[1]);
  if (op == "detach") return in[0].detach();
  if (op == "data") return in[0].data();
  if (op == "resize_") {  // then filled when it grew: the new elements hold whatever memory held
    Tensor target = in[0];
    target.resize_(fixture::dims_arg(args["size"]));
    return args.contains("fill") ? target.fill_(fixture::scalar_arg(args["fill"])) : target;
  }
  if (op == "add_out" || op == "sub_out" || op == "mul_out" || op == "div_out" || op == "mm_out" ||
      op == "matmul_out") {
    Tensor out = in[0];
    if (op == "add_out") add_out(out, in[1], in[2]);
    if (op == "sub_out") sub_out(out, in[1], in[2]);
    if (op == "mul_out") mul_out(out, in[1], in[2]);
    if (op == "div_out") div_out(out, in[1], in[2]);
    if (op == "mm_out") mm_out(out, in[1], in[2]);
    if (op == "matmul_out") matmul_out(out, in[1], in[2]);
    return out;
  }
  if (op == "rsub_scalar") return rsub(in[0], fixture::scalar_arg(args["other"]));
  if (op == "backward") {
    in[0].backward(args.value("ones", 0) ? ones_like(in[0]) : Tensor(), args.value("retain", 0) == 1);
    return {};
  }
  return fixture::run_op(op, in, args)[0];
}

// Tolerances for values recorded with "tol": that of the least precise float dtype the value's
// computation went through (the script's docstring says which values). A few ulp of the dtype at
// the programs' magnitudes (values of order 1), enough for another summation order or another exp
// and for cancellation in a bfloat16 product, far from a wrong formula.
double relative_tolerance(DType dtype) {
  if (dtype == kFloat64) return 1e-10;
  if (dtype == kBFloat16 || dtype == kFloat16) return 1.6e-2;
  return 1e-4;
}

double absolute_tolerance(DType dtype) {
  if (dtype == kFloat64) return 1e-12;
  if (dtype == kBFloat16 || dtype == kFloat16) return 1.6e-2;
  return 1e-5;
}

// "" when t's values are the record's: bit for bit, or within the tolerance where it says "tol".
std::string compare_values(const Tensor& t, const json& record) {
  const json& data = record["data"];
  std::ostringstream why;
  why.precision(17);
  if (t.dtype() == kInt64 || t.dtype() == kBool) {
    const std::vector<int64_t> got = t.to_vector<int64_t>();
    for (size_t i = 0; i < got.size(); ++i) {
      const int64_t want = data[i].is_boolean() ? int64_t{data[i].get<bool>()} : data[i].get<int64_t>();
      if (got[i] != want) return (why << "element " << i << ": " << got[i] << " != " << want, why.str());
    }
    return "";
  }
  const bool tolerant = record.contains("tol");
  const DType tolerance_dtype = tolerant ? fixture::parse_dtype(record["tol"]) : t.dtype();
  const std::vector<double> got = t.to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) {
    double want = fixture::number(data[i]);
    if (t.dtype() != kFloat64) want = static_cast<float>(want);  // float32's shortest decimal, read back
    if (std::isnan(want) && std::isnan(got[i])) continue;
    if (got[i] == want && (tolerant || std::signbit(got[i]) == std::signbit(want))) continue;
    if (tolerant && std::fabs(got[i] - want) <=
                        absolute_tolerance(tolerance_dtype) + relative_tolerance(tolerance_dtype) * std::fabs(want))
      continue;
    return (why << to_string(t.dtype()) << " element " << i << ": " << got[i] << " != " << want, why.str());
  }
  return "";
}

// The name of t's grad_fn, "" for none, or "error: <text>" when asking raised (PyTorch's fn_e).
std::string grad_fn_name(const Tensor& t) {
  try {
    return t.grad_fn() ? t.grad_fn()->name() : "";
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
}

// The first aspect in which t differs from the record, as {aspect, detail}; empty when none does.
std::pair<std::string, std::string> compare_record(const Tensor& t, const json& record) {
  const Dims shape = fixture::dims_arg(record["shape"]);
  if (t.sizes() != shape) return {"shape", to_string(t.sizes()) + " != " + to_string(shape)};
  const DType dtype = fixture::parse_dtype(record["dtype"]);
  if (t.dtype() != dtype) return {"dtype", to_string(t.dtype()) + " != " + to_string(dtype)};
  const std::string values = record.contains("uninit") ? "" : compare_values(t, record);
  if (!values.empty()) return {"values", values};
  if (t.requires_grad() != (record.value("rg", 0) == 1))
    return {"requires_grad", t.requires_grad() ? "true, PyTorch false" : "false, PyTorch true"};
  const std::string fn =
      record.contains("fn_e") ? "error: " + record["fn_e"].get<std::string>() : record.value("fn", "");
  if (grad_fn_name(t) != fn) return {"grad_fn", grad_fn_name(t) + " != " + fn};
  if (t.is_inference() != (record.value("inf", 0) == 1))
    return {"inference", t.is_inference() ? "an inference tensor, PyTorch's not" : "not an inference tensor"};
  if (!t.is_inference() && t._version() != record.value("ver", 0u))
    return {"version", std::to_string(t._version()) + " != " + std::to_string(record.value("ver", 0u))};
  if (t.is_contiguous() != (record.value("nc", 0) == 0))
    return {"contiguity", t.is_contiguous() ? "contiguous, PyTorch not" : "not contiguous, PyTorch is"};
  return {};
}

std::string op_label(const json& stmt) {
  const std::string op = stmt["op"];
  return op == "view" ? "view:" + stmt["a"]["step"][0].get<std::string>() : op;
}

// The leaves' .grad after a backward, against the recorded [[leaf, grad or null], ...].
std::string compare_grads(const std::vector<Tensor>& vars, const json& grads) {
  for (const json& entry : grads) {
    const Tensor grad = vars.at(entry[0].get<size_t>()).grad();
    const std::string leaf = "leaf " + std::to_string(entry[0].get<size_t>()) + ": ";
    if (entry[1].is_null() != !grad.defined()) return leaf + (grad.defined() ? "has a grad, PyTorch none" : "no grad");
    if (!grad.defined()) continue;
    const auto [aspect, detail] = compare_record(grad, entry[1]);
    if (!aspect.empty()) return leaf + aspect + " " + detail;
  }
  return "";
}

// Every variable's version and values at the end: the script's "end" entry where it changed
// after its statement (in-place writes through an alias), else its statement's record.
std::optional<Divergence> compare_end(const std::vector<Tensor>& vars, const json& program) {
  std::vector<const json*> final_record(vars.size(), nullptr);
  std::vector<uint32_t> final_version(vars.size(), 0);
  const json& stmts = program["stmts"];
  for (size_t i = 0; i < vars.size(); ++i) {
    const json& stmt = stmts[i];
    if (stmt.contains("r")) final_record[i] = &stmt["r"], final_version[i] = stmt["r"].value("ver", 0u);
    if (stmt["op"] == "new") final_record[i] = &stmt["a"]["t"];
  }
  for (const json& end : program["end"]) {
    const size_t i = end[0];
    final_version[i] = end[1];
    final_record[i] = &end[2];
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!vars[i].defined() || !final_record[i]) continue;
    const Dims shape = fixture::dims_arg((*final_record[i])["shape"]);
    if (vars[i].sizes() != shape)
      return Divergence{i, op_label(stmts[i]), "final state", to_string(vars[i].sizes()) + " != " + to_string(shape)};
    std::string why = final_record[i]->contains("uninit") ? "" : compare_values(vars[i], *final_record[i]);
    if (why.empty() && !vars[i].is_inference() && vars[i]._version() != final_version[i])
      why = "version " + std::to_string(vars[i]._version()) + " != " + std::to_string(final_version[i]);
    if (!why.empty()) return Divergence{i, op_label(stmts[i]), "final state", why};
  }
  return std::nullopt;
}

// What about a statement explains a known difference (test_replay.cpp), added to its divergence's
// detail: an inference tensor used outside inference mode, an out= whose out shares memory with
// an input.
std::string circumstances_of(const json& stmt, const std::vector<Tensor>& in) {
  std::string found;
  const bool inference_input =
      std::any_of(in.begin(), in.end(), [](const Tensor& t) { return t.defined() && t.is_inference(); });
  if (inference_input && stmt.value("im", 0) == 0) found += " [an inference tensor's op outside inference mode]";
  const std::string op = stmt["op"];
  if (op.ends_with("_out") && in.size() == 3 && (in[0].is_alias_of(in[1]) || in[0].is_alias_of(in[2])))
    found += " [out shares memory with an input]";
  return found;
}

// Runs the statements into `vars`, comparing as it goes: the first divergence, if any.
std::optional<Divergence> run_statements(const json& program, std::vector<Tensor>& vars) {
  const json no_args = json::object();
  const json& stmts = program["stmts"];
  for (size_t s = 0; s < stmts.size(); ++s) {
    const json& stmt = stmts[s];
    const std::string op = stmt["op"];
    std::vector<Tensor> in;
    for (const json& i : stmt["in"]) in.push_back(vars.at(i.get<size_t>()));
    const std::string circumstances = circumstances_of(stmt, in);
    auto diverged = [&](std::string aspect, std::string detail) {
      return Divergence{s, op_label(stmt), std::move(aspect), std::move(detail) + circumstances};
    };
    Tensor result;
    std::string error;
    try {
      AutoGradMode grad_mode(stmt.value("ng", 0) == 0);
      std::optional<InferenceMode> inference_mode;
      if (stmt.value("im", 0) == 1) inference_mode.emplace();
      std::optional<AutocastGuard> autocast;
      if (stmt.value("ac", 0) == 1) autocast.emplace(DeviceType::CPU, kBFloat16);
      result = run_statement(op, stmt.contains("a") ? stmt["a"] : no_args, in);
    } catch (const InternalError& e) {
      return diverged("crash", std::string("internal error: ") + e.what());
    } catch (const Error& e) {
      error = e.what();
    } catch (const std::exception& e) {
      return diverged("crash", std::string("not an ember::Error: ") + e.what());
    }
    if (stmt.contains("e")) {
      if (error.empty()) return diverged("did not raise", stmt["e"].get<std::string>());
      if (error != stmt["e"].get<std::string>())
        return diverged("error text", error + "\n  PyTorch: " + stmt["e"].get<std::string>());
    } else if (!error.empty()) {
      return diverged("raised", error);
    }
    vars.push_back(error.empty() ? result : Tensor());
    if (stmt.contains("r")) {
      const auto [aspect, detail] = compare_record(result, stmt["r"]);
      if (!aspect.empty()) return diverged(aspect, detail);
    }
    if (stmt.contains("g")) {
      const std::string why = compare_grads(vars, stmt["g"]);
      if (!why.empty()) return diverged("grad", why);
    }
  }
  return compare_end(vars, program);
}

// A tensor whose own graph saved it: tensor -> grad_fn -> ... -> node -> saved tensor, the same
// tensor. Nothing outside holds the cycle, yet reference counts never reach zero.
bool saved_by_its_own_graph(const Tensor& t) {
  try {
    if (!t.defined() || !t.grad_fn()) return false;
  } catch (const Error&) {  // a no_grad view whose base changed: asking for its grad_fn raises
    return false;
  }
  for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(t))
    if (saved.tensor.impl() == t.impl()) return true;
  return false;
}

// Frees what every node of t's graph saved, which breaks a cycle through a saved tensor.
void release_graph(const Tensor& t) {
  std::vector<autograd::Node*> to_visit{t.grad_fn().get()};
  std::unordered_set<autograd::Node*> seen;
  while (!to_visit.empty()) {
    autograd::Node* node = to_visit.back();
    to_visit.pop_back();
    if (!seen.insert(node).second) continue;
    node->release();
    for (const autograd::Edge& edge : node->next_edges)
      if (edge.node) to_visit.push_back(edge.node.get());
  }
}

}  // namespace

ProgramRun run_program(const json& program) {
  std::vector<Tensor> vars;
  ProgramRun run;
  run.divergence = run_statements(program, vars);
  for (const Tensor& t : vars) {
    if (!saved_by_its_own_graph(t)) continue;
    run.keeps_itself_alive = true;
    release_graph(t);  // so that the next program starts from nothing allocated
  }
  return run;
}

std::string bucket(const Divergence& divergence) { return divergence.aspect + ": " + divergence.op; }

}  // namespace replay
