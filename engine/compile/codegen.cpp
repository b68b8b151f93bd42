// Writes a kernel's loops: which values each pass over a row computes, in program order. See codegen.h.
#include "codegen.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace ember::compiler {

namespace {

using Kind = KernelValue::Kind;

constexpr int kColumnBlock = 64;  // rows a column sum adds in float before it moves them to double
// A pass that writes outputs runs over a row kStoreChunk columns at a time, each output through a
// chunk buffer when it is streamed: streaming stores in bursts of more than a few cache lines
// stalled the loop (the block's backward took 5.9 ms with 256 columns against 5.2 ms with 64, on
// Sapphire Rapids). A pass that reads inputs from memory runs kPrefetchChunk columns at a time and,
// before each chunk, asks for the same columns of the next row: a row of an input is its own 4 KiB
// page, where the hardware's prefetcher stops. From memory this took the block 5 to 10% faster; 256
// columns (longer bursts of prefetches) gained nothing, 64 cost their reductions' epilogues.
constexpr int kStoreChunk = 64;
constexpr int kPrefetchChunk = 128;

bool is_reduction(Kind kind) {
  return kind == Kind::RowSum || kind == Kind::RowMean || kind == Kind::ColumnSum || kind == Kind::ColumnMean;
}
bool is_column_reduction(Kind kind) { return kind == Kind::ColumnSum || kind == Kind::ColumnMean; }

class Writer {
 public:
  Writer(const capture::Graph& graph, const Kernel& kernel) : graph_(graph), kernel_(kernel) {}

  std::string write() {
    header();
    out_ << "extern \"C\" void " << kernel_.name
         << "(const float* const* in, float* const* out, int64_t rows, int64_t columns, int threads) {\n";
    for (size_t i = 0; i < kernel_.inputs.size(); ++i)
      line(1, "const float* ", name(kernel_.inputs[i]), "_in = in[", i, "];");
    for (size_t i = 0; i < kernel_.outputs.size(); ++i)
      line(1, "float* ", name(kernel_.outputs[i]), "_out = out[", i, "];");
    for (const auto& [value, info] : kernel_.values)  // numbers: read once
      if (info.indexing == Indexing::Scalar) define(1, value);
    std::vector<int> column_sums;
    for (const auto& [value, v] : kernel_.values)
      if (is_column_reduction(v.kind)) column_sums.push_back(value);
    // In double: a column adds one term per row, and rows are many. Each thread has its own slot,
    // and the slots are added in thread order after the rows, so the sums do not depend on timing.
    for (int value : column_sums) {
      line(1, "std::vector<double> ", name(value), "_total(columns, 0.0);");
      line(1, "std::vector<double> ", name(value), "_partials(threads * columns, 0.0);  // one slot per thread");
    }
    const int passes = last_pass() + 1;
    schedule(passes);
    const std::vector<int> streamed = per_element_outputs();
    if (!read_inputs_.empty()) {
      line(1, "// Inputs larger than a core's caches keep come from memory: a pass asks for the next row's early.");
      line(1, "const bool prefetch_inputs = ember_beyond_caches(rows * columns * ", read_inputs_.size() * sizeof(float),
           " / threads);");
    }
    if (!streamed.empty()) {
      line(1, "// Outputs larger than a core's caches keep go to memory with streaming stores (ember_stream).");
      line(1, "const bool stream_outputs = ember_beyond_caches(rows * columns * ", streamed.size() * sizeof(float),
           " / threads);");
    }
    line(1, "#pragma omp parallel num_threads(threads)");
    line(1, "{");
    for (int value : streamed) line(2, "alignas(64) float ", name(value), "_chunk[", kStoreChunk, "];");
    // A thread adds its rows' terms in float, and every kColumnBlock rows moves them into double:
    // the float sums' rounding stays that of a few terms, and the inner loops stay float.
    for (int value : column_sums) {
      line(2, "std::vector<float> ", name(value), "_block(columns, 0.0f);  // this thread's last rows");
      line(2, "double* ", name(value), "_partial = ", name(value),
           "_partials.data() + omp_get_thread_num() * columns;");
    }
    if (!column_sums.empty()) line(2, "int64_t rows_in_block = 0;");
    for (int value : buffered_)
      line(2, "std::vector<float> ", name(value), "_row(columns);  // ", name(value), " of this row, for later passes");
    line(2, "#pragma omp for schedule(static)", streamed.empty() ? "" : " nowait");
    line(2, "for (int64_t r = 0; r < rows; ++r) {");
    row_values(0);
    for (int pass = 0; pass < passes; ++pass) {
      this->pass(pass, passes);
      row_values(pass + 1);
    }
    if (!column_sums.empty()) {
      line(3, "if (++rows_in_block == ", kColumnBlock, ") {");
      move_blocks(4);
      line(4, "rows_in_block = 0;");
      line(3, "}");
    }
    line(2, "}");
    if (!streamed.empty()) line(2, "if (stream_outputs) ember_stream_fence();  // before the closing barrier");
    if (!column_sums.empty()) move_blocks(2);
    line(1, "}");
    if (!column_sums.empty()) {
      line(1, "for (int thread = 0; thread < threads; ++thread)");
      line(2, "for (int64_t c = 0; c < columns; ++c) {");
      for (int value : column_sums)
        line(3, name(value), "_total[c] += ", name(value), "_partials[thread * columns + c];");
      line(2, "}");
    }
    for (int value : column_sums)
      if (is_output(value))
        line(1, "for (int64_t c = 0; c < columns; ++c) ", name(value), "_out[c] = ", expression(value), ";");
    // Per-column values the kernel writes (from per-column inputs and column sums): once, after the rows.
    std::vector<int> per_column;
    for (int output : kernel_.outputs)
      if (info(output).indexing == Indexing::Column && !is_column_reduction(info(output).kind))
        per_column.push_back(output);
    if (!per_column.empty()) {
      line(1, "for (int64_t c = 0; c < columns; ++c) {");
      for (int value : closure(per_column, Indexing::Column)) define(2, value);
      for (int output : per_column) line(2, name(output), "_out[c] = ", name(output), ";");
      line(1, "}");
    }
    for (int output : kernel_.outputs)
      if (info(output).indexing == Indexing::Scalar) line(1, name(output), "_out[0] = ", name(output), ";");
    out_ << "}\n";
    return out_.str();
  }

 private:
  template <typename... Parts>
  void line(int depth, const Parts&... parts) {
    out_ << std::string(2 * depth, ' ');
    (out_ << ... << parts);
    out_ << "\n";
  }
  const KernelValue& info(int value) const { return kernel_.values.at(value); }
  bool is_output(int value) const {
    return std::find(kernel_.outputs.begin(), kernel_.outputs.end(), value) != kernel_.outputs.end();
  }
  const std::string& name(int value) const { return graph_.values[value].name; }
  bool stored_per_element(int value) const {
    const KernelValue& v = info(value);
    return v.indexing == Indexing::Full && v.kind != Kind::Input && is_output(value);
  }
  std::vector<int> per_element_outputs() const {
    std::vector<int> found;
    for (int output : kernel_.outputs)
      if (stored_per_element(output)) found.push_back(output);
    return found;
  }
  // Moves each column sum's float block into its double partial sums.
  void move_blocks(int depth) {
    line(depth, "for (int64_t c = 0; c < columns; ++c) {");
    for (const auto& [value, v] : kernel_.values)
      if (is_column_reduction(v.kind)) {
        line(depth + 1, name(value), "_partial[c] += ", name(value), "_block[c];");
        line(depth + 1, name(value), "_block[c] = 0.0f;");
      }
    line(depth, "}");
  }

  void header() {
    std::string ops;
    for (const std::string& op : kernel_.replaced_ops) ops = str_cat(ops, ops.empty() ? "" : ", ", op);
    out_ << "// " << kernel_.name << ": " << kernel_.replaced_ops.size() << " ops in one pass over memory\n";
    out_ << "//   replaces " << ops << "\n";
    out_ << "//   reads";
    for (size_t i = 0; i < kernel_.inputs.size(); ++i)
      out_ << (i ? "," : "") << " " << name(kernel_.inputs[i]) << " ("
           << indexing_name(info(kernel_.inputs[i]).indexing) << ")";
    out_ << "\n//   writes";
    for (size_t i = 0; i < kernel_.outputs.size(); ++i)
      out_ << (i ? "," : "") << " " << name(kernel_.outputs[i]) << " ("
           << indexing_name(info(kernel_.outputs[i]).indexing) << ")";
    out_ << "\n";
  }

  // The C++ that computes `value` from its operands' names.
  std::string expression(int value) const {
    const KernelValue& v = info(value);
    if (v.kind == Kind::Alias) return name(v.operands[0]);
    if (v.kind == Kind::Input) {
      switch (v.indexing) {
        case Indexing::Scalar: return name(value) + "_in[0]";
        case Indexing::Row: return name(value) + "_in[r]";
        case Indexing::Column: return name(value) + "_in[c]";
        case Indexing::Full: return name(value) + "_in[r * columns + c]";
      }
    }
    if (v.kind == Kind::ColumnSum) return str_cat("static_cast<float>(", name(value), "_total[c])");
    if (v.kind == Kind::ColumnMean) return str_cat("static_cast<float>(", name(value), "_total[c] / rows)");
    if (v.kind == Kind::RowSum) return name(value) + "_sum";
    if (v.kind == Kind::RowMean) return name(value) + "_sum / static_cast<float>(columns)";
    std::string text = v.formula;
    for (size_t i = v.operands.size(); i-- > 0;) {
      const std::string placeholder = str_cat("$", i);
      for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at))
        text.replace(at, placeholder.size(), name(v.operands[i]));
    }
    return text;
  }
  void define(int depth, int value) { line(depth, "const float ", name(value), " = ", expression(value), ";"); }

  // The values to compute, in program order, for `targets` inside a loop of the given indexing:
  // those of that indexing or per column (per row and single numbers are already defined outside).
  std::vector<int> closure(const std::vector<int>& targets, Indexing loop) const {
    std::set<int> needed;
    std::vector<int> stack(targets.begin(), targets.end());
    while (!stack.empty()) {
      const int value = stack.back();
      stack.pop_back();
      const KernelValue& v = info(value);
      const bool in_loop = v.indexing == Indexing::Column || (loop == Indexing::Full && v.indexing == Indexing::Full);
      if (!in_loop ||
          (v.kind != Kind::Pointwise && v.kind != Kind::Alias && v.kind != Kind::Input &&
           !(loop == Indexing::Column && is_column_reduction(v.kind))) ||
          !needed.insert(value).second)
        continue;
      stack.insert(stack.end(), v.operands.begin(), v.operands.end());
    }
    return {needed.begin(), needed.end()};
  }

  // The pass over a row in which each target is computed: a row reduction's operand's stage, a
  // column reduction's, a stored value's own.
  int pass_of(int value) const {
    const KernelValue& v = info(value);
    if (is_reduction(v.kind)) return info(v.operands[0]).stage;
    return v.stage;
  }
  std::vector<int> targets(int pass) const {
    std::vector<int> found;
    for (const auto& [value, v] : kernel_.values) {
      const bool row_reduction = v.kind == Kind::RowSum || v.kind == Kind::RowMean;
      if ((row_reduction || is_column_reduction(v.kind) || stored_per_element(value)) && pass_of(value) == pass)
        found.push_back(value);
    }
    return found;
  }
  int last_pass() const {
    int last = 0;
    for (int p = 0; p < 64; ++p)
      if (!targets(p).empty()) last = p;
    return last;
  }

  // Which values each pass computes, and which it reads back from a row buffer: a per-element
  // value an earlier pass computed is kept in a buffer of one row (per thread, in the L1 cache)
  // rather than computed again, so that each element's sigmoid runs once however many passes read it.
  struct PassPlan {
    std::vector<int> targets, computed, reloaded;
    std::vector<int> first_reads;  // per-element inputs no earlier pass read: from memory
  };
  void schedule(int passes) {
    for (int pass = 0; pass < passes; ++pass) {
      PassPlan plan;
      plan.targets = targets(pass);
      std::vector<int> stack;
      for (int value : plan.targets) stack.push_back(is_reduction(info(value).kind) ? info(value).operands[0] : value);
      std::set<int> computed, reloaded;
      while (!stack.empty()) {
        const int value = stack.back();
        stack.pop_back();
        const KernelValue& v = info(value);
        const bool in_loop = v.indexing == Indexing::Full || v.indexing == Indexing::Column;
        if (!in_loop || (v.kind != Kind::Pointwise && v.kind != Kind::Alias && v.kind != Kind::Input)) continue;
        if (v.kind == Kind::Pointwise && v.indexing == Indexing::Full && first_pass_.count(value)) {
          reloaded.insert(value);
          buffered_.insert(value);
          continue;
        }
        if (!computed.insert(value).second) continue;
        stack.insert(stack.end(), v.operands.begin(), v.operands.end());
      }
      plan.computed.assign(computed.begin(), computed.end());
      plan.reloaded.assign(reloaded.begin(), reloaded.end());
      for (int value : plan.computed) {
        if (info(value).indexing != Indexing::Full) continue;
        if (info(value).kind == Kind::Pointwise) first_pass_.emplace(value, pass);
        if (info(value).kind == Kind::Input && read_inputs_.insert(value).second) plan.first_reads.push_back(value);
      }
      schedule_.push_back(std::move(plan));
    }
  }

  void pass(int number, int passes) {
    const PassPlan& plan = schedule_[number];
    if (plan.targets.empty()) return;
    std::vector<int> sums, stores;
    for (int value : plan.targets) {
      if (info(value).kind == Kind::RowSum || info(value).kind == Kind::RowMean) sums.push_back(value);
      if (stored_per_element(value)) stores.push_back(value);
    }
    const int chunk = !stores.empty() ? kStoreChunk : !plan.first_reads.empty() ? kPrefetchChunk : 0;
    line(3, "// pass ", number + 1, " of ", passes, " over the row",
         chunk ? str_cat(", ", chunk, " columns at a time") : "");
    std::string reduction;
    for (int value : sums) {
      line(3, "float ", name(value), "_sum = 0.0f;");
      reduction = str_cat(reduction, reduction.empty() ? "" : ", ", name(value), "_sum");
    }
    int depth = 3;
    if (chunk) {
      line(depth, "for (int64_t chunk = 0; chunk < columns; chunk += ", chunk, ") {");
      ++depth;
      line(depth, "const int64_t chunk_end = std::min<int64_t>(chunk + ", chunk, ", columns);");
      if (!plan.first_reads.empty()) {
        line(depth, "if (prefetch_inputs && r + 1 < rows) {");
        for (int value : plan.first_reads)
          line(depth + 1, "ember_prefetch(", name(value), "_in + (r + 1) * columns + chunk, chunk_end - chunk);");
        line(depth, "}");
      }
      for (int value : stores)
        line(depth, "float* ", name(value), "_to = stream_outputs ? ", name(value), "_chunk : ", name(value),
             "_out + r * columns + chunk;");
    }
    line(depth, "#pragma omp simd", reduction.empty() ? "" : str_cat(" reduction(+ : ", reduction, ")"));
    line(depth, chunk ? "for (int64_t c = chunk; c < chunk_end; ++c) {" : "for (int64_t c = 0; c < columns; ++c) {");
    for (int value : plan.reloaded) line(depth + 1, "const float ", name(value), " = ", name(value), "_row[c];");
    for (int value : plan.computed) {
      define(depth + 1, value);
      if (buffered_.count(value) && first_pass_.at(value) == number)
        line(depth + 1, name(value), "_row[c] = ", name(value), ";");
    }
    for (int value : plan.targets) {
      const KernelValue& v = info(value);
      if (v.kind == Kind::RowSum || v.kind == Kind::RowMean)
        line(depth + 1, name(value), "_sum += ", name(v.operands[0]), ";");
      else if (is_column_reduction(v.kind)) line(depth + 1, name(value), "_block[c] += ", name(v.operands[0]), ";");
      else line(depth + 1, name(value), "_to[c - chunk] = ", name(value), ";");
    }
    line(depth, "}");
    if (!stores.empty()) {
      line(depth, "if (stream_outputs) {");
      for (int value : stores)
        line(depth + 1, "ember_stream(", name(value), "_out + r * columns + chunk, ", name(value),
             "_chunk, chunk_end - chunk);");
      line(depth, "}");
    }
    if (chunk) line(3, "}");
  }

  // After pass `stage` - 1 (or at the row's start): the row's values of this stage, and the stores
  // of those the kernel writes.
  void row_values(int stage) {
    for (const auto& [value, v] : kernel_.values) {
      if (v.indexing != Indexing::Row || v.stage != stage) continue;
      define(3, value);
      if (is_output(value)) line(3, name(value), "_out[r] = ", name(value), ";");
    }
  }

  const capture::Graph& graph_;
  const Kernel& kernel_;
  std::ostringstream out_;
  std::vector<PassPlan> schedule_;
  std::set<int> buffered_;         // values kept in a row buffer
  std::map<int, int> first_pass_;  // per-element value -> the pass that computes it
  std::set<int> read_inputs_;      // per-element inputs some pass reads
};

}  // namespace

std::string kernel_source(const capture::Graph& graph, const Kernel& kernel) { return Writer(graph, kernel).write(); }

std::string file_source(const capture::Graph& graph, const Plan& plan) {
  std::string text = "// Generated by ember::compile from this graph:\n";
  std::istringstream lines(graph.str());
  for (std::string line; std::getline(lines, line);) text += str_cat("//   ", line, "\n");
  text += "#include \"ember_kernel_prelude.h\"\n#include <algorithm>\n";
  for (const Kernel& kernel : plan.kernels) text += str_cat("\n", kernel_source(graph, kernel));
  return text;
}

}  // namespace ember::compiler
