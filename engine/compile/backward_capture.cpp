// The backward of one kernel, found by running autograd's formulas under a capture, partitioned
// (saved or recomputed) and checked against eager autograd: see compiled_region.h.
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "autograd/grad.h"
#include "compiled_region.h"
#include "core/grad_mode.h"

namespace ember::compiler {

namespace {

// Deterministic values for an example tensor (no generator is touched): a spread over [-1, 1].
Tensor example_like(const capture::ValueInfo& info, uint64_t seed) {
  Tensor t = empty(info.sizes, Options(info.dtype));
  if (info.dtype == kFloat32) {
    float* data = t.data_ptr<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
      data[i] = static_cast<float>((static_cast<uint64_t>(i) * 2654435761u + seed * 40503u) % 2001) / 1000.0f - 1.0f;
  } else {
    t.zero_();
  }
  return t;
}

// The kernel's ops run eagerly from `inputs`, with autograd on: every value the kernel reads or makes.
std::map<int, Tensor> run_ops(const capture::Graph& graph, const Kernel& kernel, const std::vector<Tensor>& inputs) {
  AutoGradMode grad_on(true);
  std::vector<Tensor> env(graph.values.size());
  for (size_t i = 0; i < kernel.inputs.size(); ++i) env[kernel.inputs[i]] = inputs[i];
  for (int node : kernel.nodes) replay(graph, node, env);
  std::map<int, Tensor> values;
  for (const auto& [value, info] : kernel.values) values[value] = env[value];
  return values;
}

// The kernel's inputs as leaves, those the capture saw requiring grad requiring it again.
std::vector<Tensor> leaves(const capture::Graph& graph, const Kernel& kernel, const std::vector<Tensor>& values) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    Tensor t = values[i].detach();
    if (graph.values[kernel.inputs[i]].requires_grad) t.requires_grad_(true);
    inputs.push_back(t);
  }
  return inputs;
}

// A tangent (an example gradient) for each output of the kernel that requires grad.
struct Tangents {
  std::vector<int> outputs;  // forward values
  std::vector<Tensor> tensors;
};
Tangents tangents(const capture::Graph& graph, const Kernel& kernel, std::map<int, Tensor>& values, uint64_t seed) {
  Tangents result;
  for (int v : kernel.outputs) {
    if (!values[v].requires_grad()) continue;
    result.outputs.push_back(v);
    result.tensors.push_back(example_like(graph.values[v], seed++));
  }
  return result;
}

// Autograd's gradients of those outputs, one per kernel input (undefined where none is wanted).
std::vector<Tensor> gradients(const Tangents& given, std::map<int, Tensor>& values, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs, wanted;
  for (int v : given.outputs) outputs.push_back(values[v]);
  for (const Tensor& t : inputs)
    if (t.requires_grad()) wanted.push_back(t);
  const std::vector<Tensor> found = autograd::grad(outputs, wanted, given.tensors, false, false, true);
  std::vector<Tensor> per_input;
  size_t next = 0;
  for (const Tensor& t : inputs) per_input.push_back(t.requires_grad() ? found[next++] : Tensor());
  return per_input;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.raw_data(), y.raw_data(), x.numel() * x.element_size()) == 0;
}

// Copies values and nodes of other graphs into one, renumbering.
class GraphBuilder {
 public:
  // A copy of `info` under a name no other value has (FX's rule: mul, mul_1, mul_2, ...).
  int add(const capture::ValueInfo& info) {
    capture::ValueInfo copy = info;
    std::string base = info.name;
    if (const size_t underscore = base.rfind('_');
        underscore != std::string::npos && underscore + 1 < base.size() &&
        base.find_first_not_of("0123456789", underscore + 1) == std::string::npos)
      base.erase(underscore);
    for (int n = 1; !names_.insert(copy.name).second; ++n) copy.name = str_cat(base, "_", n);
    graph.values.push_back(std::move(copy));
    return static_cast<int>(graph.values.size()) - 1;
  }
  void add_node(const capture::OpNode& node, std::map<int, int>& renamed) {
    capture::OpNode copy = node;
    for (int& v : copy.tensor_inputs)
      if (v >= 0) v = renamed.at(v);
    for (auto& argument : copy.arguments)
      if (argument.kind == capture::Argument::Kind::Value) argument.value = renamed.at(argument.value);
    for (int& v : copy.outputs)
      if (v >= 0) {
        const int made = add(source_->values[v]);
        graph.values[made].producer = static_cast<int>(graph.nodes.size());
        renamed[v] = made;
        v = made;
      }
    graph.nodes.push_back(std::move(copy));
  }
  void from(const capture::Graph& source) { source_ = &source; }
  capture::Graph graph;

 private:
  const capture::Graph* source_ = nullptr;
  std::set<std::string> names_;
};

}  // namespace

std::shared_ptr<RegionBackward> capture_backward(const capture::Graph& forward, const Kernel& kernel,
                                                 std::string& why_not) {
  std::vector<Tensor> examples;
  for (int v : kernel.inputs) examples.push_back(forward.examples.at(v));
  const std::vector<Tensor> inputs = leaves(forward, kernel, examples);
  if (std::none_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.requires_grad(); })) return nullptr;
  std::map<int, Tensor> values = run_ops(forward, kernel, inputs);

  // Autograd's formulas, run under a capture that knows the forward values by their storage.
  const Tangents given = tangents(forward, kernel, values, 0);
  if (given.outputs.empty()) return nullptr;
  std::vector<std::string> tangent_names;
  for (size_t i = 0; i < given.outputs.size(); ++i) tangent_names.push_back(str_cat("tangents_", i + 1));
  std::map<int, int> forward_of;  // captured value -> forward value
  capture::Graph captured;
  {
    capture::Session session(given.tensors, tangent_names);
    session.functionalize_temporaries = true;
    for (const auto& [v, t] : values) {
      int id = -1;
      session.add_known(t, forward.values[v].name, &id);
      forward_of[id] = v;
    }
    std::vector<Tensor> per_input;
    try {
      per_input = gradients(given, values, inputs);
    } catch (const std::exception& error) {
      why_not = str_cat("autograd failed while captured: ", error.what());
      return nullptr;
    }
    captured = session.finish(per_input);
  }
  if (!captured.unreplayable.empty()) {
    why_not = captured.unreplayable;
    return nullptr;
  }

  // The partition: which forward values the backward reads, and how each reaches it.
  auto region = std::make_shared<RegionBackward>();
  region->tangents_for = given.outputs;
  std::set<int> read;
  for (const capture::OpNode& node : captured.nodes)
    for (int v : node.tensor_inputs)
      if (forward_of.count(v)) read.insert(forward_of[v]);
  for (int v : captured.outputs)
    if (forward_of.count(v)) read.insert(forward_of[v]);
  std::set<int> recompute;
  std::vector<int> stack(read.begin(), read.end());
  std::set<int> saved;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    const KernelValue& info = kernel.values.at(v);
    const bool cheap = info.indexing == Indexing::Full &&
                       (info.kind == KernelValue::Kind::Pointwise || info.kind == KernelValue::Kind::Alias);
    if (!cheap) {
      saved.insert(v);
      continue;
    }
    if (!recompute.insert(v).second) continue;
    for (int operand : forward.nodes[forward.values[v].producer].tensor_inputs)
      if (operand >= 0) stack.push_back(operand);
  }
  region->saved.assign(saved.begin(), saved.end());
  for (int v : recompute) region->recomputed.push_back(forward.values[v].name);

  // The backward program: tangents and saved values in, the recomputed forward ops, then autograd's.
  GraphBuilder builder;
  std::map<int, int> from_forward, from_captured;
  for (size_t i = 0; i < given.outputs.size(); ++i) {
    const int id = builder.add(captured.values[captured.inputs[i]]);
    builder.graph.inputs.push_back(id);
    from_captured[captured.inputs[i]] = id;
  }
  for (int v : region->saved) {
    capture::ValueInfo info = forward.values[v];
    info.producer = -1;
    info.requires_grad = false;
    from_forward[v] = builder.add(info);
    builder.graph.inputs.push_back(from_forward[v]);
  }
  builder.from(forward);
  for (int node : kernel.nodes)
    if (recompute.count(forward.nodes[node].outputs[0])) builder.add_node(forward.nodes[node], from_forward);
  for (const auto& [id, v] : forward_of)
    if (from_forward.count(v)) from_captured[id] = from_forward[v];
  for (size_t i = 0; i < captured.constants.size(); ++i) {
    const int id = builder.add(captured.values[captured.constants[i]]);
    builder.graph.constants.push_back(id);
    builder.graph.constant_tensors.push_back(captured.constant_tensors[i]);
    from_captured[captured.constants[i]] = id;
  }
  builder.from(captured);
  for (const capture::OpNode& node : captured.nodes) builder.add_node(node, from_captured);
  for (int v : captured.outputs) builder.graph.outputs.push_back(v >= 0 ? from_captured.at(v) : -1);
  region->program.graph = std::move(builder.graph);

  // The check: on fresh inputs, the backward program (its ops replayed) gives eager autograd's bits.
  const std::vector<Tensor> fresh = [&] {
    std::vector<Tensor> made;
    for (int v : kernel.inputs) made.push_back(example_like(forward.values[v], 1000 + v));
    return leaves(forward, kernel, made);
  }();
  std::map<int, Tensor> fresh_values = run_ops(forward, kernel, fresh);
  const Tangents fresh_tangents = tangents(forward, kernel, fresh_values, 7);
  std::vector<Tensor> program_inputs = fresh_tangents.tensors;
  for (int v : region->saved) program_inputs.push_back(fresh_values[v].detach());
  const std::vector<Tensor> expected = gradients(fresh_tangents, fresh_values, fresh);
  Program replayed{region->program.graph, {}, "", nullptr, {}, {}};
  for (size_t n = 0; n < replayed.graph.nodes.size(); ++n) replayed.plan.steps.push_back({static_cast<int>(n), -1});
  const std::vector<Tensor> got = run(replayed, program_inputs);
  for (size_t i = 0; i < got.size(); ++i)
    if (!same_bits(got[i], expected.at(i))) {
      why_not = str_cat("the captured backward does not reproduce eager autograd's gradient of ",
                        forward.values[kernel.inputs[i]].name);
      return nullptr;
    }
  build(region->program);
  return region;
}

std::string RegionBackward::describe(const capture::Graph& forward) const {
  std::ostringstream out;
  out << "backward of the kernel: gradients given for";
  for (int v : tangents_for) out << " " << forward.values[v].name;
  out << "\n  saved:";
  for (int v : saved) out << " " << forward.values[v].name;
  out << "\n  recomputed (point-wise, cheaper to compute again than to write and read):";
  for (const std::string& name : recomputed) out << " " << name;
  out << "\n" << program.graph.str() << compiler::describe(program.graph, program.plan);
  return out.str();
}

}  // namespace ember::compiler
