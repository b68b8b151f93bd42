// The scheduler: one pass over the graph in program order, keeping one kernel open. See fusion.h.
#include "fusion.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "lowering.h"

namespace ember::compiler {

const char* indexing_name(Indexing indexing) {
  switch (indexing) {
    case Indexing::Scalar: return "one number";
    case Indexing::Row: return "per row";
    case Indexing::Column: return "per column";
    case Indexing::Full: return "per element";
  }
  return "";
}

namespace {

using Kind = KernelValue::Kind;

// The kernel being built, and the checks that decide whether an op joins it.
class OpenKernel {
 public:
  explicit OpenKernel(const capture::Graph& graph) : graph_(graph) {}
  bool empty() const { return kernel_.nodes.empty(); }
  bool makes(int value) const {
    auto found = kernel_.values.find(value);
    return found != kernel_.values.end() && found->second.kind != Kind::Input;
  }
  bool reads_any_made_by_it(const std::vector<int>& values) const {
    return std::any_of(values.begin(), values.end(), [&](int v) { return v >= 0 && makes(v); });
  }

  // Adds the node if it fits; false (and nothing changed) if not.
  bool try_add(int index, const Lowering& lowering) {
    const capture::OpNode& node = graph_.nodes[index];
    const int output = node.outputs.at(0);
    const Dims& output_sizes = graph_.values[output].sizes;
    if (empty() && !set_loop(lowering, output_sizes)) return false;
    std::map<int, KernelValue> added;
    KernelValue made;
    switch (lowering.kind) {
      case Lowering::Kind::Pointwise: {
        const auto indexing = indexing_of_result(output_sizes, lowering.operands);
        if (!indexing) return false;
        made = {Kind::Pointwise, *indexing, 0, lowering.formula, lowering.operands};
        for (int operand : lowering.operands) {
          if (!read(operand, output_sizes, *indexing, added, made.stage)) return false;
          made.after_rows = made.after_rows || (makes(operand) && kernel_.values.at(operand).after_rows);
        }
        break;
      }
      case Lowering::Kind::View: {
        const int source = lowering.operands[0];
        if (!makes(source)) return false;
        const KernelValue& from = kernel_.values.at(source);
        const auto indexing = indexing_of(output_sizes);
        const bool widens = graph_.values[source].sizes.size() <= output_sizes.size() &&
                            product(graph_.values[source].sizes) < product(output_sizes);  // expand
        if (!indexing || (*indexing != from.indexing && !(widens && implied(source, output_sizes) == from.indexing)))
          return false;
        made = {Kind::Alias, *indexing, from.stage, "", {source}, from.after_rows};
        if (made.after_rows && made.indexing != Indexing::Column) return false;
        break;
      }
      default: {  // the four reductions
        const int source = lowering.operands[0];
        const Dims& source_sizes = graph_.values[source].sizes;
        if (!full(source_sizes)) return false;
        const bool over_rows = lowering.kind == Lowering::Kind::RowSum || lowering.kind == Lowering::Kind::RowMean;
        const Indexing indexing = over_rows ? Indexing::Row : Indexing::Column;
        if (product(output_sizes) != (over_rows ? kernel_.rows : kernel_.columns)) return false;
        int stage = 0;
        if (!read(source, source_sizes, Indexing::Full, added, stage)) return false;
        const Kind kind = lowering.kind == Lowering::Kind::RowSum      ? Kind::RowSum
                          : lowering.kind == Lowering::Kind::RowMean   ? Kind::RowMean
                          : lowering.kind == Lowering::Kind::ColumnSum ? Kind::ColumnSum
                                                                       : Kind::ColumnMean;
        made = {kind, indexing, over_rows ? stage + 1 : stage, "", {source}, !over_rows};
      }
    }
    for (auto& [value, info] : added) kernel_.values[value] = info;
    for (int o : node.outputs) kernel_.values[o] = made;
    kernel_.nodes.push_back(index);
    kernel_.replaced_ops.push_back(node.op);
    return true;
  }

  Kernel take() {
    Kernel done = std::move(kernel_);
    kernel_ = Kernel();
    return done;
  }

 private:
  bool full(const Dims& sizes) const {
    return !sizes.empty() && sizes.back() == kernel_.columns && product(sizes) == kernel_.rows * kernel_.columns &&
           (sizes.size() >= 2 || kernel_.rows == 1);
  }
  // A value's indexing from its own shape, where that alone decides it.
  std::optional<Indexing> indexing_of(const Dims& sizes) const {
    const int64_t n = product(sizes);
    if (n == 1) return Indexing::Scalar;
    if (full(sizes)) return Indexing::Full;
    if (n == kernel_.rows && n != kernel_.columns) return Indexing::Row;
    if (n == kernel_.columns && n != kernel_.rows && sizes.back() == kernel_.columns) return Indexing::Column;
    if (n == kernel_.rows && !sizes.empty() && sizes.back() == 1) return Indexing::Row;
    return std::nullopt;
  }
  // A point-wise result's indexing: per element if its shape is the loop's, else the widest of its
  // operands' (a row's statistic plus a number is per row).
  std::optional<Indexing> indexing_of_result(const Dims& sizes, const std::vector<int>& operands) const {
    if (full(sizes)) return Indexing::Full;
    Indexing widest = Indexing::Scalar;
    for (int operand : operands) {
      const Dims& operand_sizes = graph_.values[operand].sizes;
      Indexing indexing;
      if (makes(operand)) indexing = kernel_.values.at(operand).indexing;
      else if (auto own = indexing_of(operand_sizes)) indexing = *own;
      else return std::nullopt;
      if (indexing == Indexing::Full) return std::nullopt;
      if (widest != Indexing::Scalar && indexing != Indexing::Scalar && indexing != widest) return std::nullopt;
      if (indexing != Indexing::Scalar) widest = indexing;
    }
    const int64_t n = product(sizes);
    const int64_t expected = widest == Indexing::Row ? kernel_.rows : widest == Indexing::Column ? kernel_.columns : 1;
    if (n != expected) return std::nullopt;
    return widest;
  }
  // How an operand of `sizes` is read by an op whose result has `result_sizes`, by broadcasting.
  std::optional<Indexing> implied(int operand, const Dims& result_sizes) const {
    const Dims& sizes = graph_.values[operand].sizes;
    const int64_t n = product(sizes);
    if (n == 1) return Indexing::Scalar;
    if (!full(result_sizes)) return indexing_of(sizes);
    if (n == product(result_sizes)) return Indexing::Full;
    if (!sizes.empty() && sizes.back() == kernel_.columns && n == kernel_.columns) return Indexing::Column;
    if (!sizes.empty() && sizes.back() == 1 && n == kernel_.rows) return Indexing::Row;
    return std::nullopt;
  }
  // The operand read as `result_sizes` implies: an input of the kernel (noted in `added`), or a value
  // it makes, whose indexing must be the one implied. Raises `stage` to the operand's.
  bool read(int operand, const Dims& result_sizes, Indexing result_indexing, std::map<int, KernelValue>& added,
            int& stage) {
    const auto indexing = implied(operand, result_sizes);
    if (!indexing ||
        (result_indexing != Indexing::Full && *indexing != result_indexing && *indexing != Indexing::Scalar))
      return false;
    auto found = kernel_.values.find(operand);
    if (found == kernel_.values.end()) {
      auto already = added.find(operand);
      if (already != added.end() && already->second.indexing != *indexing) return false;
      added[operand] = {Kind::Input, *indexing, 0, "", {}};
      return true;
    }
    if (found->second.indexing != *indexing) return false;
    if (found->second.after_rows && result_indexing != Indexing::Column) return false;  // known at the end
    stage = std::max(stage, found->second.stage);
    return true;
  }
  // The loop of a new kernel: from the first op's result, or a reduction's operand.
  bool set_loop(const Lowering& lowering, const Dims& output_sizes) {
    const bool reduction = lowering.kind != Lowering::Kind::Pointwise && lowering.kind != Lowering::Kind::View;
    const Dims& sizes = reduction ? graph_.values[lowering.operands[0]].sizes : output_sizes;
    if (sizes.size() < 2 || sizes.back() == 0 || product(sizes) == 0) return false;
    kernel_.columns = sizes.back();
    kernel_.rows = product(sizes) / kernel_.columns;
    return true;
  }

  const capture::Graph& graph_;
  Kernel kernel_;
};

// Inductor's kernel name: cpp_fused_ and the sorted, distinct short names of the ops it replaces.
std::string kernel_name(const Kernel& kernel, size_t number) {
  std::set<std::string> names;
  for (const std::string& op : kernel.replaced_ops) {
    if (keeps_elements_in_place(op)) continue;
    std::string name = op.substr(op.rfind(':') + 1);
    if (!name.empty() && name[0] == '_') name.erase(0, 1);
    if (!name.empty() && name.back() == '_') name.pop_back();
    names.insert(name);
  }
  std::string text = "cpp_fused";
  for (const std::string& name : names) text = str_cat(text, "_", name);
  return str_cat(text, "_", number);
}

}  // namespace

Plan plan(const capture::Graph& graph, const std::vector<int>& must_write) {
  Plan result;
  OpenKernel open(graph);
  auto close = [&] {
    if (open.empty()) return;
    result.steps.push_back({-1, static_cast<int>(result.kernels.size())});
    result.kernels.push_back(open.take());
  };
  // Dead code: a fusable op whose values nothing reads is dropped (an eager op may have effects).
  const int count = static_cast<int>(graph.nodes.size());
  std::vector<Lowering> lowerings;
  for (const capture::OpNode& node : graph.nodes) lowerings.push_back(lower(graph, node));
  std::set<int> live(graph.outputs.begin(), graph.outputs.end());
  live.insert(must_write.begin(), must_write.end());
  std::vector<bool> dead(count, false);
  for (int index = count - 1; index >= 0; --index) {
    const capture::OpNode& node = graph.nodes[index];
    dead[index] = in_kernels(lowerings[index].kind) &&
                  std::none_of(node.outputs.begin(), node.outputs.end(), [&](int v) { return live.count(v); });
    if (!dead[index]) live.insert(node.tensor_inputs.begin(), node.tensor_inputs.end());
  }
  for (int index = 0; index < count; ++index) {
    if (dead[index]) continue;
    const capture::OpNode& node = graph.nodes[index];
    const Lowering& lowering = lowerings[index];
    const bool fusable = in_kernels(lowering.kind);
    const bool view_of_outside = lowering.kind == Lowering::Kind::View && !open.makes(lowering.operands[0]);
    if (fusable && !view_of_outside && node.outputs.size() == 1 && node.outputs[0] >= 0) {
      if (open.try_add(index, lowering)) continue;
      if (!open.empty()) {
        close();
        if (open.try_add(index, lowering)) continue;
      }
    }
    // Runs eagerly: before the open kernel when it reads nothing the kernel makes and writes
    // nothing in place (the kernel reads its inputs later), else after it.
    if (node.in_place || open.reads_any_made_by_it(node.tensor_inputs)) close();
    result.steps.push_back({index, -1});
    if (lowering.kind == Lowering::Kind::Extern) ++result.extern_calls;
    else if (lowering.kind == Lowering::Kind::None) result.breaks.push_back(str_cat(node.op, ": ", lowering.why_not));
  }
  close();  // (an eager step hoisted above a kernel is already before it: close() appends the kernel)

  // What each kernel writes: the values it makes that a later step, the graph's outputs or
  // `must_write` read, and the inputs it reads.
  std::set<int> read_outside(graph.outputs.begin(), graph.outputs.end());
  read_outside.insert(must_write.begin(), must_write.end());
  std::map<int, int> kernel_of_node;
  for (size_t k = 0; k < result.kernels.size(); ++k)
    for (int n : result.kernels[k].nodes) kernel_of_node[n] = static_cast<int>(k);
  for (size_t k = 0; k < result.kernels.size(); ++k) {
    Kernel& kernel = result.kernels[k];
    kernel.name = kernel_name(kernel, k);
    std::set<int> outside = read_outside;
    for (int n = 0; n < count; ++n) {
      if (dead[n]) continue;
      auto owner = kernel_of_node.find(n);
      if (owner != kernel_of_node.end() && owner->second == static_cast<int>(k)) continue;
      outside.insert(graph.nodes[n].tensor_inputs.begin(), graph.nodes[n].tensor_inputs.end());
    }
    for (const auto& [value, info] : kernel.values) {
      if (info.kind == Kind::Input) kernel.inputs.push_back(value);
      else if (outside.count(value)) kernel.outputs.push_back(value);
    }
  }
  return result;
}

std::string describe(const capture::Graph& graph, const Plan& plan) {
  std::ostringstream out;
  for (const Step& step : plan.steps) {
    if (step.node >= 0) {
      const capture::OpNode& node = graph.nodes[step.node];
      out << "eager  " << node.op << " -> "
          << (node.outputs.empty() || node.outputs[0] < 0 ? "_" : graph.values[node.outputs[0]].name) << "\n";
      continue;
    }
    const Kernel& kernel = plan.kernels[step.kernel];
    out << "kernel " << kernel.name << ": " << kernel.rows << " rows x " << kernel.columns << " columns, replaces";
    for (const std::string& op : kernel.replaced_ops) out << " " << op;
    out << "\n  reads ";
    for (size_t i = 0; i < kernel.inputs.size(); ++i)
      out << (i ? ", " : "") << graph.values[kernel.inputs[i]].name << " ("
          << indexing_name(kernel.values.at(kernel.inputs[i]).indexing) << ")";
    out << "\n  writes ";
    for (size_t i = 0; i < kernel.outputs.size(); ++i)
      out << (i ? ", " : "") << graph.values[kernel.outputs[i]].name << " ("
          << indexing_name(kernel.values.at(kernel.outputs[i]).indexing) << ")";
    out << "\n";
  }
  for (const std::string& why : plan.breaks) out << "graph break: " << why << "\n";
  return out.str();
}

}  // namespace ember::compiler
