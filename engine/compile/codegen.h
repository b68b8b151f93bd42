// Code generation: a plan's kernels written as C++ a person could have written, Inductor's
// cpp backend in miniature. Each kernel is one function: a parallel loop over rows, and per row one
// vectorisable loop over its columns per pass (fusion.h), each value a named local computed from
// its operands. The system's compiler vectorises the inner loops (`#pragma omp simd`); the
// element functions it needs (a branch-free exp) are the prelude's, so that nothing in a loop
// body calls into libm's scalar code.
#pragma once
#include <string>

#include "fusion.h"

namespace ember::compiler {

// The element functions every generated file includes (kernel_prelude.cpp; written beside it as
// ember_kernel_prelude.h).
const std::string& prelude();

// One kernel's function: extern "C" void <name>(const float* const* in, float* const* out,
// int64_t rows, int64_t columns, int threads), `in` and `out` in the kernel's input and output order.
std::string kernel_source(const capture::Graph& graph, const Kernel& kernel);

// A whole generated file: the prelude's include and every kernel of the plan.
std::string file_source(const capture::Graph& graph, const Plan& plan);

}  // namespace ember::compiler
