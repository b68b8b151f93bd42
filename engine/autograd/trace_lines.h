// What the dispatch trace (core/dispatch_trace.h) says about tensors and autograd: a tensor's
// description, the node an op recorded and what it saved, and the backward engine's work (each
// node run, its hooks, AccumulateGrad). Written here, above the core, because a tensor's history
// (its grad_fn, its base) is autograd's to tell. Called only while a trace runs.
#pragma once
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/dispatch_trace.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace ember::autograd {

struct Node;

namespace trace_lines {

// "[8, 2] float32, strides [1, 8], view of t1, requires_grad, grad_fn TBackward0, version 0"
std::string describe(const Tensor& t);
// "float32" (dtype.h's to_string without "torch.")
std::string dtype_name(DType dtype);

// One argument of an op as its header line shows it: a tensor by its name, a number by its value.
template <typename Arg>
std::string argument(const Arg& arg) {
  using T = std::decay_t<Arg>;
  if constexpr (std::is_same_v<T, Tensor>) return trace::name_of(arg);
  else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    std::string text = "[";
    for (const Tensor& t : arg) text += (text.size() > 1 ? ", " : "") + trace::name_of(t);
    return text + "]";
  } else if constexpr (std::is_same_v<T, bool>) return arg ? "true" : "false";
  else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, Scalar> || std::is_same_v<T, Dims> ||
                     std::is_same_v<T, Device>)
    return str_cat(arg);
  else if constexpr (std::is_same_v<T, DType>) return dtype_name(arg);
  else if constexpr (std::is_same_v<T, std::string>) return "\"" + arg + "\"";
  else if constexpr (std::is_same_v<T, std::nullopt_t> || std::is_empty_v<T>) return "None";  // an unset option
  else if constexpr (std::is_same_v<T, MemoryFormat>)
    return arg == MemoryFormat::Contiguous ? "contiguous_format"
           : arg == MemoryFormat::Preserve ? "preserve_format"
                                           : "channels_last";
  else if constexpr (requires {
                       arg.has_value();
                       *arg;
                     })
    return arg ? argument(*arg) : "None";
  else return "...";
}

// The op's header and one line per tensor argument:
//   aten::addmm(t2, t0, t3, 1, 1)
//     t2: [2] float32, leaf requiring grad, version 0
void op_called(const char* op_name, const std::vector<std::string>& arguments, const std::vector<Tensor>& tensors);
// The new tensor an op returned: "output t4: [4, 2] float32, version 0, new storage s3 (32 bytes)",
// or which argument's storage it shares, or that it is an argument itself.
void output(const Tensor& result, const std::vector<Tensor>& tensors);
// "autograd: records AddmmBackward0, saves mat1 = t0 (version 0), mat2 = t3 (version 0);
//  next: torch::autograd::AccumulateGrad of t2, None, TBackward0"
void recorded(Node& node);
// An in-place op on a view records its node inside a CopySlices that becomes the base's grad_fn
// (copy_slices.h), and the view's grad_fn becomes a view of that: the three lines that say so.
void recorded_on_a_view(const Tensor& view);

// ---- the backward engine ----
// "SumBackward0 runs: given [] float32" (the lines of its formula follow, indented)
void node_runs(const Node& node, const std::vector<Tensor>& grad_outputs);
// "gives [4, 2] float32 to AddmmBackward0, None to ..." after the formula and post-hooks.
void node_gives(const Node& node, const std::vector<Tensor>& grad_inputs);
// "frees its saved tensors: mat1 (t0), mat2 (t3)" (backward without retain_graph).
void node_released(Node& node);
// What AccumulateGrad made of a leaf's .grad: "t9.grad = t31: t30 itself, detached (no copy)".
enum class Accumulation { Kept, CopiedInLayout, CopiedContiguous, AddedInPlace, AddedOutOfPlace };
void accumulated(const Tensor& leaf, const Tensor& new_grad, Accumulation how);

}  // namespace trace_lines

}  // namespace ember::autograd
