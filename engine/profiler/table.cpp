// key_averages().table(): PyTorch's layout to the character (profiler_util.py `_build_table`),
// so a reader who knows PyTorch's table reads ember's without a second look:
//   - columns Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, [Self CUDA, Self
//     CUDA %, CUDA total, CUDA time avg when a row has GPU time], [CPU Mem, Self CPU Mem with
//     profile_memory, then CUDA Mem, Self CUDA Mem when a row allocated GPU memory], # of Calls, [Input Shapes when
//     grouped by them], [Total <unit>FLOPs with with_flops]; every cell right-aligned and followed by two spaces;
//   - the Name column as wide as the longest name + 4, at most 55, longer names cut to 52 + "...";
//   - percentages of the sum of all rows' self times (so "CPU total %" can add up past 100%), the
//     CUDA ones of the rows' self CUDA times;
//   - times in us below 1 ms, ms below 1 s, else s, with three decimals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "profiler.h"

namespace ember::profiler {
namespace {

constexpr int kColumnWidth = 12;
constexpr int kMaxNameWidth = 55;
constexpr int kMaxShapesWidth = 80;

template <typename... Values>
std::string format(const char* pattern, Values... values) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, values...);
  return text;
}

std::string format_time(double us) {
  if (us >= 1e6) return format("%.3fs", us / 1e6);
  if (us >= 1e3) return format("%.3fms", us / 1e3);
  return format("%.3fus", us);
}

std::string format_share(double us, double total_us) {
  if (total_us == 0) return "NaN";
  return format("%.2f%%", us * 100.0 / total_us);
}

std::string format_memory(int64_t bytes) {
  const double kb = 1024, mb = 1024 * kb, gb = 1024 * mb;
  const double magnitude = std::fabs(static_cast<double>(bytes));
  if (magnitude >= gb) return format("%.2f Gb", static_cast<double>(bytes) / gb);
  if (magnitude >= mb) return format("%.2f Mb", static_cast<double>(bytes) / mb);
  if (magnitude >= kb) return format("%.2f Kb", static_cast<double>(bytes) / kb);
  return std::to_string(bytes) + " b";
}

// The value each sort_by name sorts on.
std::function<double(const EventAverage&)> sort_key(const std::string& sort_by) {
  if (sort_by == "cpu_time") return [](const EventAverage& e) { return e.cpu_time(); };
  if (sort_by == "cpu_time_total") return [](const EventAverage& e) { return e.cpu_time_total; };
  if (sort_by == "self_cpu_time_total") return [](const EventAverage& e) { return e.self_cpu_time_total; };
  if (sort_by == "cpu_memory_usage") return [](const EventAverage& e) { return double(e.cpu_memory_usage); };
  if (sort_by == "self_cpu_memory_usage") return [](const EventAverage& e) { return double(e.self_cpu_memory_usage); };
  if (sort_by == "count") return [](const EventAverage& e) { return double(e.count); };
  if (sort_by == "flops") return [](const EventAverage& e) { return double(e.flops); };
  if (sort_by == "cuda_time") return [](const EventAverage& e) { return e.cuda_time(); };
  if (sort_by == "cuda_time_total") return [](const EventAverage& e) { return e.cuda_time_total; };
  if (sort_by == "self_cuda_time_total") return [](const EventAverage& e) { return e.self_cuda_time_total; };
  if (sort_by == "cuda_memory_usage") return [](const EventAverage& e) { return double(e.cuda_memory_usage); };
  if (sort_by == "self_cuda_memory_usage")
    return [](const EventAverage& e) { return double(e.self_cuda_memory_usage); };
  throw Error(str_cat("'FunctionEventAvg' object has no attribute '", sort_by, "'"));
}

struct Layout {
  std::string row_format_separator;  // '-' * width + two spaces, per column
  std::vector<int> widths;
  void add_column(int width) {
    widths.push_back(width);
    row_format_separator += std::string(width, '-') + "  ";
  }
  std::string row(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      const int pad = widths[i] - static_cast<int>(cells[i].size());
      line += std::string(std::max(pad, 0), ' ') + cells[i] + "  ";
    }
    return line;
  }
};

}  // namespace

std::string KeyAverages::table(const std::string& sort_by, int64_t row_limit) const {
  std::vector<EventAverage> rows = rows_;
  if (!sort_by.empty()) {
    const auto key = sort_key(sort_by);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const EventAverage& a, const EventAverage& b) { return key(a) > key(b); });
  }
  if (rows.empty()) return "";

  size_t longest_name = 0, longest_shapes = 0;
  bool has_input_shapes = false;
  int64_t smallest_flops = 0;
  double total_self_us = 0, total_self_cuda_us = 0;
  bool has_cuda_time = false, has_cuda_memory = false;
  for (const EventAverage& row : rows) {
    longest_name = std::max(longest_name, row.key.size());
    longest_shapes = std::max(longest_shapes, shapes_string(row.input_shapes).size());
    has_input_shapes = has_input_shapes || (grouped_by_input_shape_ && !row.input_shapes.empty());
    if (row.flops > 0 && (smallest_flops == 0 || row.flops < smallest_flops)) smallest_flops = row.flops;
    total_self_us += row.self_cpu_time_total;
    total_self_cuda_us += row.self_cuda_time_total;
    has_cuda_time = has_cuda_time || row.self_cuda_time_total > 0;
    has_cuda_memory = has_cuda_memory || row.self_cuda_memory_usage > 0;
  }
  const bool with_flops = options_.with_flops && smallest_flops > 0;
  const int name_width = std::min(static_cast<int>(longest_name) + 4, kMaxNameWidth);
  const int shapes_width = std::min(static_cast<int>(longest_shapes) + 4, kMaxShapesWidth);

  std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  if (has_cuda_time) headers.insert(headers.end(), {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"});
  if (options_.profile_memory) headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
  if (options_.profile_memory && has_cuda_memory) headers.insert(headers.end(), {"CUDA Mem", "Self CUDA Mem"});
  headers.push_back("# of Calls");
  Layout layout;
  layout.add_column(name_width);
  for (size_t i = 1; i < headers.size(); ++i) layout.add_column(kColumnWidth);
  if (has_input_shapes) {
    headers.push_back("Input Shapes");
    layout.add_column(shapes_width);
  }
  // The FLOPs unit is chosen by the smallest non-zero count: 1024 FLOPs -> KFLOPs, 1.024.
  double flops_scale = 1;
  if (with_flops) {
    const char* units[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
    const double log_flops = std::max(0.0, std::min(std::log10(static_cast<double>(smallest_flops)) / 3, 5.0));
    flops_scale = std::pow(10, std::floor(log_flops) * -3.0);
    headers.push_back(std::string("Total ") + units[static_cast<int>(log_flops)]);
    layout.add_column(kColumnWidth);
  }

  std::string out =
      layout.row_format_separator + "\n" + layout.row(headers) + "\n" + layout.row_format_separator + "\n";
  for (int64_t shown = 0; shown < row_limit && shown < static_cast<int64_t>(rows.size()); ++shown) {
    const EventAverage& row = rows[shown];
    std::string name = row.key;
    if (name.size() >= kMaxNameWidth - 3) name = name.substr(0, kMaxNameWidth - 3) + "...";
    std::vector<std::string> cells = {name,
                                      format_share(row.self_cpu_time_total, total_self_us),
                                      format_time(row.self_cpu_time_total),
                                      format_share(row.cpu_time_total, total_self_us),
                                      format_time(row.cpu_time_total),
                                      format_time(row.cpu_time())};
    if (has_cuda_time)
      cells.insert(cells.end(),
                   {format_time(row.self_cuda_time_total), format_share(row.self_cuda_time_total, total_self_cuda_us),
                    format_time(row.cuda_time_total), format_time(row.cuda_time())});
    if (options_.profile_memory)
      cells.insert(cells.end(), {format_memory(row.cpu_memory_usage), format_memory(row.self_cpu_memory_usage)});
    if (options_.profile_memory && has_cuda_memory)
      cells.insert(cells.end(), {format_memory(row.cuda_memory_usage), format_memory(row.self_cuda_memory_usage)});
    cells.push_back(std::to_string(row.count));
    if (has_input_shapes) cells.push_back(shapes_string(row.input_shapes).substr(0, shapes_width));
    if (with_flops)
      cells.push_back(row.flops <= 0 ? "--" : format("%8.3f", static_cast<double>(row.flops) * flops_scale));
    out += layout.row(cells) + "\n";
  }
  out += layout.row_format_separator + "\nSelf CPU time total: " + format_time(total_self_us) + "\n";
  if (has_cuda_time) out += "Self CUDA time total: " + format_time(total_self_cuda_us) + "\n";
  return out;
}

}  // namespace ember::profiler
