// Lowerings: what the compiler knows of each op, in one table (lowering.cpp), as Inductor's
// lowering.py maps each aten op to the loop body it generates. A point-wise op becomes one line of
// C++ over its operands' element values; sum and mean over the last dimension, or over all the
// leading ones, become reductions; a view that keeps the elements in place costs nothing; a matrix
// product stays a call to oneDNN. Anything else has no lowering and runs eagerly.
#pragma once
#include <string>
#include <vector>

#include "capture/capture.h"

namespace ember::compiler {

struct Lowering {
  // Extern: a matrix product, called as it is. Eager: a view that reorders elements (a transpose,
  // a slice): it moves no data, so running it as it is breaks nothing.
  enum class Kind { Pointwise, RowSum, RowMean, ColumnSum, ColumnMean, View, Extern, Eager, None };
  Kind kind = Kind::None;
  // Whether the op becomes generated code: so it may be fused, and dropped when nothing reads it
  // (the others are calls with effects or costs of their own).
  friend bool in_kernels(Kind kind) { return kind != Kind::None && kind != Kind::Extern && kind != Kind::Eager; }
  std::string formula;        // Pointwise: "$0 * $1", "ember_sigmoid($0)", numbers written in
  std::vector<int> operands;  // the graph values it reads
  std::string why_not;        // None: why ("no lowering", "an in-place op", "float64")
};

Lowering lower(const capture::Graph& graph, const capture::OpNode& node);

// Whether `op` is a view that keeps its elements in place (view, reshape, expand, ...): free in a
// kernel, and left out of the kernel's name.
bool keeps_elements_in_place(const std::string& op);

// A number as a float literal the generated C++ reads back exactly ("0.5f", "1e-05f").
std::string float_literal(double number);

}  // namespace ember::compiler
