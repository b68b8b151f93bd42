// A compiled graph at run time, and the backward of each kernel in it: AOTAutograd in miniature.
//
// Running: each step of the plan either replays one op (the op runs as it always does, recording
// its own autograd node) or calls one generated kernel. A kernel whose inputs require grad records
// one node, CompiledFunctionBackward, with an edge to each input.
//
// The backward of a kernel is found, not written: the kernel's ops are run once more on its example
// inputs, and autograd's own formulas (derivatives.h) run under a capture, which records the ops
// they call. That graph reads forward values; the partition decides how each reaches it. A kernel
// input is saved. A row's statistic (a reduction's result) is saved: the kernel writes it, a few
// bytes per row. Any other point-wise value is recomputed from those in the backward's own kernel
// rather than written to memory and read back, as AOTAutograd's min-cut partitioner prefers for
// memory-bound ops. The backward graph is then checked against eager autograd on fresh inputs
// (bit for bit, since both run the same ops) before it is compiled like a forward graph.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fusion.h"
#include "system_compiler.h"

namespace ember::compiler {

using KernelFunction = void (*)(const float* const* in, float* const* out, int64_t rows, int64_t columns, int threads);

struct RegionBackward;

// A graph ready to run.
struct Program {
  capture::Graph graph;
  Plan plan;
  std::string source;                                            // the generated file ("" with no kernels)
  std::shared_ptr<const Library> library;                        // null: the kernels' ops run eagerly
  std::vector<KernelFunction> functions;                         // per kernel
  std::vector<std::shared_ptr<const RegionBackward>> backwards;  // per kernel; null: no compiled backward
};

// One kernel's backward: a program whose inputs are a gradient for each of `tangents_for` (forward
// values), then the `saved` forward values; its outputs, a gradient per input of the kernel.
struct RegionBackward {
  Program program;
  std::vector<int> tangents_for, saved;
  std::vector<std::string> recomputed;  // forward values the backward computes again
  std::string describe(const capture::Graph& forward) const;
};

// Plans the program's graph (writing `must_write` too), generates its source and builds it.
void build(Program& program, const std::vector<int>& must_write = {});
// Runs node `node` of `graph` eagerly on the tensors in `env` (one per graph value), writing its outputs there.
void replay(const capture::Graph& graph, int node, std::vector<Tensor>& env);
// Runs it on tensors given in the order of graph.inputs; its outputs in the order of graph.outputs.
std::vector<Tensor> run(const Program& program, const std::vector<Tensor>& inputs);

// (backward_capture.cpp) The backward of `kernel` of `forward` (whose examples are still held); null, with the reason
// in `why_not`, when no input requires grad or the captured backward does not reproduce eager's.
std::shared_ptr<RegionBackward> capture_backward(const capture::Graph& forward, const Kernel& kernel,
                                                 std::string& why_not);

}  // namespace ember::compiler
