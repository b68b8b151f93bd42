// ember::compile: torch.compile's path in one place a reader can hold. The first call of a
// compiled function runs it eagerly while a capture records its ops (capture/capture.h, Dynamo's
// part); the compiler then groups the point-wise and reduction ops into kernels (fusion.h,
// Inductor's scheduler), writes them as C++ (codegen.h) and builds them with the system's compiler
// (system_compiler.h, with an on-disk cache). Each kernel is one node of autograd's graph, named
// CompiledFunctionBackward as AOTAutograd's is; its backward is captured by running autograd's own
// formulas once under a capture and is compiled the same way (the partition in compiled_region.h).
// Later calls check the guards (input shapes, strides, dtypes, devices, requires_grad, grad mode,
// inference mode, autocast, the module's training flag) and run the compiled plan, or capture
// again when a guard fails (a recompile, counted, its reason kept, as TORCH_LOGS=recompiles says).
//
//   auto compiled = ember::compile(model);            // a module holder, or a function of tensors
//   Tensor y = compiled.forward(x);                   // compiled({x, residual}) for a function
//   std::cout << compiled.explain();                  // graphs, kernels, breaks, recompiles
//
// EMBER_COMPILE_DEBUG=1 writes each capture's graph, plan, generated source and compile command to
// ./ember_compile_debug/ (TORCH_COMPILE_DEBUG's torch_compile_debug/).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/ops.h"
#include "core/named_tensor.h"

namespace ember {

namespace compiler {
struct Entry;

// What explain() reports, as torch._dynamo.explain does, for the latest capture and in total.
struct Stats {
  int captures = 0;                            // graphs captured: the first call and each recompile
  int recompiles = 0;                          // captures after the first, each for a failed guard
  std::vector<std::string> recompile_reasons;  // "tensor 'x' size mismatch at index 0. expected 64, actual 32"
  int captured_ops = 0;                        // in the latest graph
  int kernels = 0;                             // fused kernels in the latest graph
  int fused_ops = 0;                           // ops those kernels replace
  int extern_calls = 0;                        // matrix products called as they are
  std::vector<std::string> graph_breaks;       // ops with no lowering, which run eagerly
  int eager_runs = 0;                          // calls run eagerly: compiler failure or the cache limit
};
}  // namespace compiler

class CompiledFunction {
 public:
  using Function = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  explicit CompiledFunction(Function function, std::vector<std::string> input_names = {});

  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);
  Tensor forward(const Tensor& input);  // one input, one output: a compiled module's call

  // A module's parameters and buffers appear in the graph under their names, and its training flag
  // is guarded (compile(module) sets both).
  std::function<NamedTensors()> named_constants;
  std::function<bool()> training;
  std::string name = "compiled";  // the debug folder's and explain()'s name for it

  const compiler::Stats& stats() const { return stats_; }
  std::string explain() const;
  // The latest capture's graph, plan and generated source, as EMBER_COMPILE_DEBUG writes them.
  std::string graph_text() const;
  std::string plan_text() const;
  std::string source() const;
  std::string backward_source(size_t kernel) const;  // "" when that kernel has no compiled backward

 private:
  std::shared_ptr<compiler::Entry> capture(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs);
  Function function_;
  std::vector<std::string> input_names_;
  std::vector<std::shared_ptr<compiler::Entry>> entries_;
  compiler::Stats stats_;
};

// torch.compile for a function of tensors (anything a CompiledFunction::Function holds).
template <typename Function>
requires(!requires(Function m) { m->named_parameters(); }) CompiledFunction
    compile(Function function, std::vector<std::string> input_names = {}) {
  return CompiledFunction(CompiledFunction::Function(std::move(function)), std::move(input_names));
}

// torch.compile(model) for a module holder (nn::Sequential, nn::Linear, a TORCH_MODULE of your own).
template <typename Holder>
requires requires(Holder m, Tensor x) {
  m->forward(x);
  m->named_parameters();
  m->is_training();
}
CompiledFunction compile(Holder module) {
  CompiledFunction compiled(
      [module](const std::vector<Tensor>& inputs) { return std::vector<Tensor>{module->forward(inputs.at(0))}; },
      {"x"});
  compiled.named_constants = [module] {
    NamedTensors named = module->named_parameters();
    for (auto& buffer : module->named_buffers()) named.push_back(buffer);
    return named;
  };
  compiled.training = [module] { return module->is_training(); };
  return compiled;
}

}  // namespace ember
