// Runs compiled programs, records their autograd nodes, and captures each kernel's backward. See
// compiled_region.h.
#include "compiled_region.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "autograd/custom_function.h"
#include "autograd/node.h"
#include "codegen.h"
#include "core/dispatch_trace.h"
#include "core/grad_mode.h"
#include "profiler/profiler.h"

namespace ember::compiler {

namespace {

using Env = std::vector<Tensor>;  // a tensor per graph value

std::vector<Tensor> gather(const Env& env, const std::vector<int>& values) {
  std::vector<Tensor> tensors;
  for (int v : values) tensors.push_back(v >= 0 ? env[v] : Tensor());
  return tensors;
}

}  // namespace

void replay(const capture::Graph& graph, int node_index, std::vector<Tensor>& env) {
  const capture::OpNode& node = graph.nodes[node_index];
  const std::vector<Tensor> outputs = node.replay(gather(env, node.tensor_inputs));
  for (size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i)
    if (node.outputs[i] >= 0) env[node.outputs[i]] = outputs[i];
}

namespace {

// The node a kernel records: its backward runs the region's compiled backward.
struct CompiledFunctionBackward : autograd::CustomBackward {
  std::shared_ptr<const RegionBackward> region;
  std::vector<int> outputs;  // the forward values the node's outputs are, in order
  std::weak_ptr<autograd::Node> node;

  std::vector<Tensor> backward(const std::vector<Tensor>& grad_outputs) override {
    const std::vector<Tensor> saved_values = autograd::saved_tensors(node.lock(), *this);
    std::vector<Tensor> program_inputs;
    for (int v : region->tangents_for)
      program_inputs.push_back(grad_outputs.at(std::find(outputs.begin(), outputs.end(), v) - outputs.begin()));
    program_inputs.insert(program_inputs.end(), saved_values.begin(), saved_values.end());
    return run(region->program, program_inputs);
  }
};

// The profiler's event for one kernel call, as for an op: named after the kernel, reading its
// inputs and writing what it allocates (its outputs), so that a roofline judges it like any op.
class KernelEvent {
 public:
  KernelEvent(const std::string& name, const std::vector<Tensor>& inputs) {
    if (!profiler::detail::recording.load(std::memory_order_relaxed)) return;
    std::vector<profiler::detail::Argument> arguments;
    int64_t bytes_read = 0;
    for (const Tensor& t : inputs) {
      arguments.push_back({&t});
      bytes_read += profiler::detail::distinct_bytes(t);
    }
    handle_ = profiler::detail::open_op(interned(name), profiler::detail::Traffic::Functional, arguments.data(),
                                        arguments.size(), bytes_read, 0);
  }
  ~KernelEvent() {
    if (handle_.is_open()) profiler::detail::close(handle_);
  }
  KernelEvent(const KernelEvent&) = delete;
  KernelEvent& operator=(const KernelEvent&) = delete;

 private:
  // Events keep their names' pointers until the profile ends: each kernel's name lives for good.
  static const char* interned(const std::string& name) {
    static std::mutex mutex;
    static std::set<std::string> names;
    std::lock_guard<std::mutex> lock(mutex);
    return names.insert(name).first->c_str();
  }
  profiler::detail::Handle handle_;
};

void run_kernel(const Program& program, int index, Env& env) {
  const Kernel& kernel = program.plan.kernels[index];
  const KernelFunction function = program.functions.empty() ? nullptr : program.functions[index];
  const std::vector<Tensor> inputs = gather(env, kernel.inputs);
  const bool needs_node = GradMode::is_enabled() &&
                          std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.requires_grad(); });
  const auto& backward = program.backwards.empty() ? nullptr : program.backwards[index];
  if (!function || (needs_node && !backward)) {  // the ops themselves, each recording its own node
    for (int node : kernel.nodes) replay(program.graph, node, env);
    return;
  }
  if (trace::enabled()) [[unlikely]]
    trace::say("compiled kernel ", kernel.name, ": ", kernel.replaced_ops.size(), " ops in one pass (", kernel.rows,
               " rows x ", kernel.columns, " columns)");
  std::vector<Tensor> contiguous_inputs, outputs;
  {
    NoGradGuard reads_only;
    for (const Tensor& t : inputs) contiguous_inputs.push_back(t.contiguous());
  }
  {
    KernelEvent event(kernel.name, contiguous_inputs);
    std::vector<const float*> in;
    std::vector<float*> out;
    for (int v : kernel.outputs) outputs.push_back(empty(program.graph.values[v].sizes, Options(kFloat32)));
    for (const Tensor& t : contiguous_inputs) in.push_back(t.data_ptr<float>());
    for (const Tensor& t : outputs) out.push_back(t.data_ptr<float>());
    function(in.data(), out.data(), kernel.rows, kernel.columns, get_num_threads());
  }
  if (needs_node) {
    auto node_backward = std::make_shared<CompiledFunctionBackward>();
    node_backward->name = "CompiledFunctionBackward";
    node_backward->is_tensor_arg.assign(inputs.size(), true);
    node_backward->region = backward;
    node_backward->outputs = kernel.outputs;
    auto node = autograd::make_custom_node(node_backward, inputs);
    node_backward->node = node;
    std::vector<Tensor> saved_only;  // outputs written for the backward alone are not differentiable
    for (size_t i = 0; i < outputs.size(); ++i)
      if (std::find(backward->tangents_for.begin(), backward->tangents_for.end(), kernel.outputs[i]) ==
          backward->tangents_for.end())
        saved_only.push_back(outputs[i]);
    outputs = autograd::wrap_outputs(node, inputs, {}, saved_only, outputs);
    std::vector<Tensor> to_save;
    for (int v : backward->saved) {
      auto input = std::find(kernel.inputs.begin(), kernel.inputs.end(), v);
      to_save.push_back(
          input != kernel.inputs.end()
              ? inputs[input - kernel.inputs.begin()]
              : outputs[std::find(kernel.outputs.begin(), kernel.outputs.end(), v) - kernel.outputs.begin()]);
    }
    autograd::save_for_backward(*node, *node_backward, to_save);
  }
  for (size_t i = 0; i < outputs.size(); ++i) env[kernel.outputs[i]] = outputs[i];
}

}  // namespace

void build(Program& program, const std::vector<int>& must_write) {
  program.plan = plan(program.graph, must_write);
  program.functions.clear();
  if (program.plan.kernels.empty()) return;
  program.source = file_source(program.graph, program.plan);
  program.library = compiler::build(program.source);
  if (!program.library) return;
  for (const Kernel& kernel : program.plan.kernels)
    program.functions.push_back(reinterpret_cast<KernelFunction>(program.library->function(kernel.name)));
}

std::vector<Tensor> run(const Program& program, const std::vector<Tensor>& inputs) {
  const capture::Graph& graph = program.graph;
  Env env(graph.values.size());
  for (size_t i = 0; i < graph.inputs.size(); ++i) env[graph.inputs[i]] = inputs.at(i);
  for (size_t i = 0; i < graph.constants.size(); ++i) env[graph.constants[i]] = graph.constant_tensors[i];
  for (const Step& step : program.plan.steps) {
    if (step.node >= 0) replay(graph, step.node, env);
    else run_kernel(program, step.kernel, env);
  }
  return gather(env, graph.outputs);
}

}  // namespace ember::compiler
