// The dispatch trace's lines about tensors and autograd (trace_lines.h).
#include "trace_lines.h"

#include <algorithm>

#include "accumulate_grad.h"
#include "autograd_meta.h"
#include "copy_slices.h"
#include "node.h"

namespace ember::autograd::trace_lines {

namespace {

// A gradient as backward's lines show it: its name and shape ("t12 [4, 2] float32"), or None.
std::string gradient(const Tensor& g) {
  if (!g.defined()) return "None";
  return str_cat(trace::name_of(g), " ", g.sizes(), " ", dtype_name(g.dtype()));
}

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::string node_label(const Node& node) {
  if (const auto* accumulate = std::get_if<AccumulateGrad>(&node.fn))
    return "AccumulateGrad of " + trace::name_of(Tensor(accumulate->variable.lock()));
  return node.name();
}

}  // namespace

std::string dtype_name(DType dtype) { return to_string(dtype).substr(std::string("torch.").size()); }

std::string describe(const Tensor& t) {
  if (!t.defined()) return "None";
  std::string text = str_cat(t.sizes(), " ", dtype_name(t.dtype()));
  if (t.device() != kCPU) text += str_cat(" ", t.device());
  if (!t.is_contiguous()) text += str_cat(", strides ", t.strides());
  if (t._is_view()) text += ", view of " + trace::name_of(t._base());
  if (t.requires_grad()) {
    if (const auto fn = t.grad_fn()) text += ", requires_grad, grad_fn " + fn->name();
    else text += ", leaf requiring grad";
  }
  text += t.is_inference() ? ", inference tensor (no version counter)" : str_cat(", version ", t._version());
  return text;
}

void op_called(const char* op_name, const std::vector<std::string>& arguments, const std::vector<Tensor>& tensors) {
  trace::say(op_name, "(", joined(arguments), ")");
  trace::Indent inside;
  std::vector<const TensorImpl*> shown;
  for (const Tensor& t : tensors) {
    if (!t.defined() || std::find(shown.begin(), shown.end(), t.impl()) != shown.end()) continue;
    shown.push_back(t.impl());
    trace::say(trace::name_of(t), ": ", describe(t));
  }
}

void output(const Tensor& result, const std::vector<Tensor>& tensors) {
  if (!result.defined()) return;
  for (const Tensor& t : tensors)
    if (t.defined() && t.impl() == result.impl()) return trace::say("output: ", trace::name_of(t), " itself");
  std::string storage =
      str_cat("new storage ", trace::storage_name_of(result), " (", result.impl()->storage->nbytes, " bytes)");
  for (const Tensor& t : tensors)
    if (t.defined() && t.impl()->storage == result.impl()->storage) {
      storage = str_cat("shares ", trace::name_of(t), "'s storage ", trace::storage_name_of(result));
      break;
    }
  trace::say("output ", trace::name_of(result), ": ", describe(result), ", ", storage);
}

void recorded(Node& node) {
  std::vector<std::string> saved, next;
  for (const auto& [name, tensor] : node.named_saved_tensors()) {
    if (tensor->saved_nothing()) continue;
    const std::string what = tensor->is_output()   ? "its output"
                             : tensor->has_hooks() ? "packed by hooks"
                                                   : trace::name_of(tensor->held());
    saved.push_back(str_cat(name, " = ", what, " (version ", tensor->saved_version(), ")"));
  }
  for (const Edge& edge : node.next_edges) next.push_back(edge.node ? node_label(*edge.node) : "None");
  trace::say("autograd: records ", node.name(), ", saves ", saved.empty() ? "nothing" : joined(saved),
             "; next: ", joined(next));
}

void recorded_on_a_view(const Tensor& view) {
  const Tensor base = view._base();
  const auto copy_slices = base.grad_fn();
  if (const auto* wrapper = copy_slices ? std::get_if<CopySlices>(&copy_slices->fn) : nullptr) recorded(*wrapper->fn);
  trace::say("autograd: base ", trace::name_of(base), "'s grad_fn is now ", copy_slices ? copy_slices->name() : "None",
             " around it; view ", trace::name_of(view), "'s is ", view.grad_fn()->name());
}

void node_runs(const Node& node, const std::vector<Tensor>& grad_outputs) {
  std::vector<std::string> given;
  for (const Tensor& g : grad_outputs) given.push_back(gradient(g));
  trace::say(node_label(node), " runs, given ", joined(given));
}

void node_gives(const Node& node, const std::vector<Tensor>& grad_inputs) {
  std::vector<std::string> given;
  for (size_t i = 0; i < grad_inputs.size() && i < node.next_edges.size(); ++i)
    if (node.next_edges[i].node)
      given.push_back(gradient(grad_inputs[i]) + " to " + node_label(*node.next_edges[i].node));
  if (!given.empty()) trace::say("gives ", joined(given));
}

void node_released(Node& node) {
  std::vector<std::string> freed;
  for (const auto& [name, tensor] : node.named_saved_tensors())
    if (!tensor->saved_nothing() && !tensor->is_released()) freed.push_back(name);
  if (!freed.empty()) trace::say("frees its saved ", joined(freed));
}

void accumulated(const Tensor& leaf, const Tensor& new_grad, Accumulation how) {
  const std::string grad = trace::name_of(leaf.impl()->autograd_meta->grad), incoming = trace::name_of(new_grad);
  const std::string what = how == Accumulation::Kept               ? incoming + " itself, detached (no copy)"
                           : how == Accumulation::CopiedInLayout   ? "a copy of " + incoming + " laid out as the leaf"
                           : how == Accumulation::CopiedContiguous ? "a contiguous copy of " + incoming
                           : how == Accumulation::AddedInPlace
                               ? "the old .grad, " + incoming + " added in place"
                               : "the old .grad plus " + incoming + ", a new tensor (create_graph)";
  trace::say(trace::name_of(leaf), ".grad = ", grad, ": ", what);
}

}  // namespace ember::autograd::trace_lines
