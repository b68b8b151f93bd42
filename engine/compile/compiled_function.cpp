// Guards, the cache of captured graphs, explain() and the debug folder. See compiled_function.h.
#include "compiled_function.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autocast/autocast.h"
#include "capture/capture.h"
#include "compiled_region.h"
#include "core/grad_mode.h"
#include "core/inference_mode.h"
#include "core/warning.h"
#include "profiler/profiler.h"

namespace ember {

namespace compiler {

// What a graph was captured under; a call under anything else captures again.
struct TensorGuard {
  std::string name;
  Dims sizes, strides;
  DType dtype;
  Device device;
  bool requires_grad;
};
struct Guards {
  std::vector<TensorGuard> inputs, constants;
  bool grad_mode = true, inference_mode = false, training = true;
  bool autocast_cpu = false, autocast_gpu = false;
};

struct Entry {
  Guards guards;
  Program program;
};

namespace {

// Dynamo's cache_size_limit: after this many graphs for one function, it runs eagerly.
constexpr size_t cache_size_limit = 8;

TensorGuard guard_of(const std::string& name, const Tensor& t) {
  if (!t.defined()) return {name, {}, {}, kFloat32, Device(), false};
  return {name, t.sizes(), t.strides(), t.dtype(), t.device(), t.requires_grad()};
}

// "" when `t` passes, else Dynamo's words for the first difference.
std::string check(const TensorGuard& guard, const Tensor& t) {
  const TensorGuard now = guard_of(guard.name, t);
  const std::string tensor = str_cat("tensor '", guard.name, "'");
  if (now.sizes.size() != guard.sizes.size())
    return str_cat(tensor, " dimension mismatch. expected ", guard.sizes.size(), ", actual ", now.sizes.size());
  for (int64_t i = 0; i < guard.sizes.size(); ++i)
    if (now.sizes[i] != guard.sizes[i])
      return str_cat(tensor, " size mismatch at index ", i, ". expected ", guard.sizes[i], ", actual ", now.sizes[i]);
  for (int64_t i = 0; i < guard.strides.size(); ++i)
    if (now.strides[i] != guard.strides[i])
      return str_cat(tensor, " stride mismatch at index ", i, ". expected ", guard.strides[i], ", actual ",
                     now.strides[i]);
  if (now.dtype != guard.dtype)
    return str_cat(tensor, " dtype mismatch. expected ", scalar_type_name(guard.dtype), ", actual ",
                   scalar_type_name(now.dtype));
  if (now.device != guard.device)
    return str_cat(tensor, " device mismatch. expected ", guard.device, ", actual ", now.device);
  if (now.requires_grad != guard.requires_grad)
    return str_cat(tensor, " requires_grad mismatch. expected requires_grad=", guard.requires_grad ? 1 : 0);
  return "";
}

std::string check(const Guards& guards, const Guards& now, const std::vector<Tensor>& inputs,
                  const std::vector<Tensor>& constants) {
  if (inputs.size() != guards.inputs.size())
    return str_cat("expected ", guards.inputs.size(), " tensor arguments, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (std::string failed = check(guards.inputs[i], inputs[i]); !failed.empty()) return failed;
  for (size_t i = 0; i < constants.size(); ++i)
    if (std::string failed = check(guards.constants[i], constants[i]); !failed.empty()) return failed;
  if (now.grad_mode != guards.grad_mode) return "grad_mode mismatch";
  if (now.inference_mode != guards.inference_mode) return "inference_mode mismatch";
  if (now.training != guards.training)
    return str_cat("L['self'].training mismatch. expected ", guards.training ? "True" : "False");
  if (now.autocast_cpu != guards.autocast_cpu || now.autocast_gpu != guards.autocast_gpu)
    return "autocast state mismatch";
  return "";
}

bool debug_folder_wanted() {
  const char* set = std::getenv("EMBER_COMPILE_DEBUG");
  return set && *set && std::string(set) != "0";
}

// EMBER_COMPILE_DEBUG's folder for one capture: ember_compile_debug/run_<pid>_<n>/<name>/.
void write_debug_folder(const std::string& name, const Program& program) {
  static std::atomic<int> runs{0};
  const char* base = std::getenv("EMBER_COMPILE_DEBUG_DIR");
  const std::filesystem::path folder = std::filesystem::path(base && *base ? base : "ember_compile_debug") /
                                       str_cat("run_", getpid(), "_", runs++) / name;
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "graph.txt") << program.graph.str();
  std::ofstream(folder / "plan.txt") << describe(program.graph, program.plan);
  std::ofstream(folder / "output_code.cpp") << program.source;
  std::ofstream(folder / "compile_command.txt") << compile_command("<cache>/<hash>.cpp", "<cache>/<hash>.so") << "\n"
                                                << "cache: " << cache_directory() << "\n";
  for (size_t k = 0; k < program.backwards.size(); ++k)
    if (const auto& backward = program.backwards[k]) {
      std::ofstream(folder / str_cat("backward_", k, ".txt")) << backward->describe(program.graph);
      std::ofstream(folder / str_cat("backward_", k, ".cpp")) << backward->program.source;
    }
}

}  // namespace
}  // namespace compiler

CompiledFunction::CompiledFunction(Function function, std::vector<std::string> input_names)
    : function_(std::move(function)),
      input_names_(std::move(input_names)) {}

Tensor CompiledFunction::forward(const Tensor& input) {
  const std::vector<Tensor> outputs = (*this)(std::vector<Tensor>{input});
  EMBER_CHECK(outputs.size() == 1, "ember::compile: the function returned ", outputs.size(), " tensors, not one");
  return outputs[0];
}

std::vector<Tensor> CompiledFunction::operator()(const std::vector<Tensor>& inputs) {
  compiler::Guards now;
  now.grad_mode = GradMode::is_enabled();
  now.inference_mode = InferenceMode::is_enabled();
  now.training = training ? training() : true;
  now.autocast_cpu = autocast::is_cpu_enabled();
  now.autocast_gpu = autocast::is_enabled();
  std::vector<Tensor> constants;
  if (named_constants)
    for (const auto& [name, t] : named_constants()) constants.push_back(t);
  std::string reason;
  for (const auto& entry : entries_) {
    reason = compiler::check(entry->guards, now, inputs, constants);
    if (reason.empty()) {
      if (!entry->program.plan.kernels.empty() && !entry->program.library) {
        // The build failed (it warned): the function itself runs, as Dynamo falls back to the
        // frame, and not the captured ops, whose decompositions (layer_norm's) are slower.
        ++stats_.eager_runs;
        return function_(inputs);
      }
      auto region = profiler::record_function("Torch-Compiled Region");
      return compiler::run(entry->program, inputs);
    }
  }
  if (entries_.size() >= compiler::cache_size_limit || capture::current()) {
    if (entries_.size() >= compiler::cache_size_limit)
      warn_once(str_cat("ember.compile: ", name, " hit the cache size limit (", compiler::cache_size_limit,
                        " graphs); it runs eagerly from now on. Last reason: ", reason));
    ++stats_.eager_runs;
    return function_(inputs);
  }
  if (!entries_.empty()) {
    ++stats_.recompiles;
    stats_.recompile_reasons.push_back(reason);
  }
  std::vector<Tensor> outputs;
  auto entry = capture(inputs, outputs);
  if (entry) {
    entry->guards = now;  // the modes; the tensors' guards follow
    for (size_t i = 0; i < inputs.size(); ++i)
      entry->guards.inputs.push_back(
          compiler::guard_of(i < input_names_.size() ? input_names_[i] : str_cat("arg", i), inputs[i]));
    if (named_constants)
      for (const auto& [constant_name, t] : named_constants())
        entry->guards.constants.push_back(compiler::guard_of(constant_name, t));
    entries_.push_back(entry);
  }
  return outputs;
}

// The first call of a graph runs eagerly under the capture (its outputs are what the caller gets),
// then the graph is planned, its kernels' backwards captured, and everything built.
std::shared_ptr<compiler::Entry> CompiledFunction::capture(const std::vector<Tensor>& inputs,
                                                           std::vector<Tensor>& outputs) {
  capture::Graph graph;
  {
    capture::Session session(inputs, input_names_);
    if (named_constants)
      for (const auto& [constant_name, t] : named_constants()) session.name_constant(t, constant_name);
    outputs = function_(inputs);
    graph = session.finish(outputs);
  }
  ++stats_.captures;
  if (!graph.unreplayable.empty()) {
    warn_once(str_cat("ember.compile: ", name, " cannot be compiled: ", graph.unreplayable, "; it runs eagerly"));
    stats_.graph_breaks = {graph.unreplayable};
    return nullptr;
  }
  auto entry = std::make_shared<compiler::Entry>();
  compiler::Program& program = entry->program;
  program.graph = std::move(graph);
  program.plan = compiler::plan(program.graph);
  std::vector<int> saved;
  for (const compiler::Kernel& kernel : program.plan.kernels) {
    std::string why_not;
    auto backward = compiler::capture_backward(program.graph, kernel, why_not);
    if (backward)
      for (int v : backward->saved) saved.push_back(v);
    else if (!why_not.empty())
      warn_once(str_cat("ember.compile: ", kernel.name, "'s backward runs eagerly: ", why_not));
    program.backwards.push_back(backward);
  }
  compiler::build(program, saved);
  program.graph.examples.clear();
  stats_.captured_ops = static_cast<int>(program.graph.nodes.size());
  stats_.kernels = static_cast<int>(program.plan.kernels.size());
  stats_.fused_ops = 0;
  for (const compiler::Kernel& kernel : program.plan.kernels) stats_.fused_ops += kernel.nodes.size();
  stats_.extern_calls = program.plan.extern_calls;
  stats_.graph_breaks = program.plan.breaks;
  if (compiler::debug_folder_wanted()) compiler::write_debug_folder(name, program);
  return entry;
}

std::string CompiledFunction::explain() const {
  std::ostringstream out;
  const int graphs = entries_.empty() ? 0 : static_cast<int>(stats_.graph_breaks.size()) + 1;
  out << "Graph Count: " << graphs << "\n";
  out << "Graph Break Count: " << stats_.graph_breaks.size() << "\n";
  out << "Op Count: " << stats_.captured_ops << "\n";
  out << "Fused kernels: " << stats_.kernels << " (replacing " << stats_.fused_ops << " ops)\n";
  out << "Extern calls (matrix products): " << stats_.extern_calls << "\n";
  out << "Break Reasons:\n";
  for (const std::string& why : stats_.graph_breaks) out << "  " << why << "\n";
  out << "Recompiles: " << stats_.recompiles << "\n";
  for (const std::string& why : stats_.recompile_reasons) out << "  " << why << "\n";
  return out.str();
}

std::string CompiledFunction::graph_text() const {
  return entries_.empty() ? "" : entries_.back()->program.graph.str();
}
std::string CompiledFunction::plan_text() const {
  return entries_.empty() ? "" : compiler::describe(entries_.back()->program.graph, entries_.back()->program.plan);
}
std::string CompiledFunction::source() const { return entries_.empty() ? "" : entries_.back()->program.source; }
std::string CompiledFunction::backward_source(size_t kernel) const {
  if (entries_.empty() || kernel >= entries_.back()->program.backwards.size()) return "";
  const auto& backward = entries_.back()->program.backwards[kernel];
  return backward ? backward->program.source : "";
}

}  // namespace ember
