// Fusion: which ops of a captured graph become one generated loop, Inductor's scheduler in
// miniature. Each op with a lowering (lowering.h) joins the open kernel when its shapes fit the
// kernel's loop; an op without one runs eagerly, as Inductor's fallback kernels do, and so does a
// matrix product (an extern call to oneDNN, as Inductor calls mm).
//
// A kernel is a loop over `rows` and `columns`, the last dimension of its largest values. Every
// value it reads or makes is indexed one of four ways (Indexing): an element per (row, column), one
// per row (a row's mean, broadcast along it), one per column (layer_norm's weight, a bias) or a
// single number. A row reduction (sum or mean over the last dimension) ends a pass over the row:
// what uses its result is computed in the next pass, so a kernel is a few passes per row (the
// `stage` of a value), all over a row that sits in the L1 cache, and one pass over memory. A
// column reduction (a bias gradient, a sum over all leading dimensions) is accumulated per thread
// and summed at the end.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "capture/capture.h"

namespace ember::compiler {

enum class Indexing { Scalar, Row, Column, Full };
const char* indexing_name(Indexing indexing);

// How a value inside a kernel is made.
struct KernelValue {
  enum class Kind { Input, Pointwise, RowSum, RowMean, ColumnSum, ColumnMean, Alias };
  Kind kind = Kind::Input;
  Indexing indexing = Indexing::Full;
  int stage = 0;              // the pass over the row in which it is first available
  std::string formula;        // Pointwise: C++ with $0, $1 for the operands ("$0 * $1")
  std::vector<int> operands;  // graph values
  bool after_rows = false;    // a column reduction or made from one: known once every row is done
};

struct Kernel {
  std::string name;        // Inductor's style: cpp_fused_add_mul_sigmoid_0
  std::vector<int> nodes;  // the graph nodes it replaces, in order
  int64_t rows = 0, columns = 0;
  std::vector<int> inputs;                // graph values read, in the order the kernel takes them
  std::vector<int> outputs;               // graph values written
  std::map<int, KernelValue> values;      // every value it reads or makes, by graph value
  std::vector<std::string> replaced_ops;  // "aten::sigmoid", ... in order, repeats kept
};

// What runs, in order: a graph node eagerly, or a kernel.
struct Step {
  int node = -1;
  int kernel = -1;
};

struct Plan {
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  // Ops with no lowering, each a graph break of the fused code: "aten::dropout: no lowering".
  std::vector<std::string> breaks;
  int extern_calls = 0;  // matrix products called as they are
};

// Groups the graph's ops into kernels. `must_write` lists values a kernel must write even when no
// later op reads them (what a backward saves).
Plan plan(const capture::Graph& graph, const std::vector<int>& must_write = {});

// The plan in words, for EMBER_COMPILE_DEBUG: each step, each kernel's ops and values.
std::string describe(const capture::Graph& graph, const Plan& plan);

}  // namespace ember::compiler
