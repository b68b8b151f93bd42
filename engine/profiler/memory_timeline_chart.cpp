// The memory timeline as a picture: stacked areas per category over time, bottom to top in
// PyTorch's plot order and colours (memory_timeline.h). Two ways to the same chart: a PNG drawn by
// gnuplot, as the exercises' charts are (demos/exercises/chart.h), and an HTML page whose chart ember
// draws itself as inline SVG, so the page needs no program, script or network to be read.
// Memory is constant between changes, so both draw steps, not slopes.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "gnuplot.h"
#include "memory_timeline.h"

namespace ember::profiler {

namespace {

// A unit that keeps the largest value between 1 and 1024.
struct Unit {
  const char* name;
  double bytes;
};
Unit unit_for(int64_t peak) {
  if (peak >= (int64_t{1} << 30)) return {"GiB", 1024.0 * 1024 * 1024};
  if (peak >= (int64_t{1} << 20)) return {"MiB", 1024.0 * 1024};
  if (peak >= (int64_t{1} << 10)) return {"KiB", 1024.0};
  return {"bytes", 1.0};
}

std::string label_of(MemoryCategory category) {
  return category == MemoryCategory::Unknown ? "Unknown" : category_name(category);
}

// The chart's points: at each change the old heights, then the new ones (a step), each row the
// time in milliseconds and the stack's tops, bottom category first (row[1] the first top).
std::vector<std::vector<double>> step_rows(const MemoryTimeline& timeline, double unit) {
  std::vector<std::vector<double>> rows;
  auto tops = [&](double ms, const MemoryTimeline::Bytes& bytes) {
    std::vector<double> row = {ms};
    double top = 0;
    for (const PlottedCategory& plotted : kPlotOrder)
      row.push_back(top += static_cast<double>(bytes[static_cast<size_t>(plotted.category)]) / unit);
    rows.push_back(row);
  };
  for (size_t i = 0; i < timeline.times_ns().size(); ++i) {
    const double ms = static_cast<double>(timeline.times_ns()[i]) / 1e6;
    if (i > 0) tops(ms, timeline.sizes()[i - 1]);
    tops(ms, timeline.sizes()[i]);
  }
  return rows;
}

std::string title_of(const MemoryTimeline& timeline) {
  const Unit unit = unit_for(timeline.peak_total());
  char peak[64];
  std::snprintf(peak, sizeof peak, "%.2f %s", static_cast<double>(timeline.peak_total()) / unit.bytes, unit.name);
  return "Memory timeline (" + timeline.device().str() + "): at most " + peak + " at once";
}

void open_check(const std::ofstream& file, const std::string& path) {
  EMBER_CHECK(file.good(), "[Errno ", errno, "] ", std::strerror(errno), ": '", path, "'");  // Python's OSError text
}

}  // namespace

void MemoryTimeline::write_png(const std::string& path) const {
  EMBER_CHECK(gnuplot::found(), "export_memory_timeline: drawing '", path,
              "' needs gnuplot, which was not found (Debian: apt-get install gnuplot-nox); .json and .html need "
              "nothing");
  const Unit unit = unit_for(peak_total());
  const std::string data_path = path + ".data";
  {
    std::ofstream data(data_path);
    open_check(data, data_path);
    for (const std::vector<double>& row : step_rows(*this, unit.bytes)) {
      for (size_t c = 0; c < row.size(); ++c) data << (c ? " " : "") << row[c];
      data << "\n";
    }
  }
  std::ostringstream gp;
  gp << "set terminal pngcairo noenhanced size 1000,560 font 'sans,11'\n"
     << "set output " << gnuplot::quoted(path) << "\n"
     << "set title " << gnuplot::quoted(title_of(*this)) << "\n"
     << "set xlabel 'Time (ms)'\nset ylabel " << gnuplot::quoted(std::string("Memory (") + unit.name + ")") << "\n"
     << "set key outside right top box\nset grid\nset yrange [0:*]\nset style fill solid 0.7 noborder\n"
     << "plot ";
  for (size_t k = 0; k < kPlotOrder.size(); ++k) {
    // Layer k lies between the top of the layers below (column k+1; none: 0) and its own top.
    const std::string lower = k == 0 ? "(0)" : std::to_string(k + 1);
    gp << (k ? ", " : "") << gnuplot::quoted(data_path) << " using 1:" << lower << ":" << k + 2
       << " with filledcurves lc rgb " << gnuplot::quoted(kPlotOrder[k].rgb) << " title "
       << gnuplot::quoted(label_of(kPlotOrder[k].category));
  }
  gp << "\n";
  const int status = gnuplot::run(gp.str(), path + ".gnuplot");
  std::filesystem::remove(data_path);
  EMBER_CHECK(status == 0, "export_memory_timeline: gnuplot could not draw '", path, "' (status ", status, ")");
}

void MemoryTimeline::write_html(const std::string& path) const {
  const Unit unit = unit_for(peak_total());
  const std::vector<std::vector<double>> rows = step_rows(*this, unit.bytes);
  constexpr double kWidth = 960, kHeight = 520, kLeft = 80, kRight = 190, kTop = 20, kBottom = 50;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double x_max = std::max(rows.back()[0], 1e-6);
  double y_max = 0;
  for (const auto& row : rows) y_max = std::max(y_max, row.back());
  // A round top for an axis, a little above its largest value, a fifth of it per tick.
  auto round_up = [](double value) {
    if (value <= 0) return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(value)));
    for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
      if (value <= step * power) return step * power;
    return 10 * power;
  };
  const double x_top = round_up(x_max), y_top = round_up(y_max);
  auto x_of = [&](double ms) { return kLeft + ms / x_top * plot_w; };
  auto y_of = [&](double value) { return kTop + plot_h - value / y_top * plot_h; };

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" fill=\"white\"/>\n";
  svg.precision(6);
  for (size_t k = 0; k < kPlotOrder.size(); ++k) {  // each layer: its top left to right, its floor back
    svg << "<polygon fill=\"" << kPlotOrder[k].rgb << "\" fill-opacity=\"0.7\" points=\"";
    for (const auto& row : rows) svg << x_of(row[0]) << "," << y_of(row[k + 1]) << " ";
    for (size_t r = rows.size(); r-- > 0;) svg << x_of(rows[r][0]) << "," << y_of(k == 0 ? 0.0 : rows[r][k]) << " ";
    svg << "\"><title>" << label_of(kPlotOrder[k].category) << "</title></polygon>\n";
  }
  for (int tick = 0; tick <= 5; ++tick) {  // grid lines and labels, five intervals on each axis
    const double x = x_of(x_top * tick / 5), y = y_of(y_top * tick / 5);
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kLeft + plot_w << "\" y2=\"" << y
        << "\" stroke=\"#ccc\"/>\n<text x=\"" << kLeft - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">"
        << y_top * tick / 5 << "</text>\n<line x1=\"" << x << "\" y1=\"" << kTop + plot_h << "\" x2=\"" << x
        << "\" y2=\"" << kTop + plot_h + 5 << "\" stroke=\"black\"/>\n<text x=\"" << x << "\" y=\""
        << kTop + plot_h + 18 << "\" text-anchor=\"middle\">" << x_top * tick / 5 << "</text>\n";
  }
  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"black\"/>\n"
      << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 10
      << "\" text-anchor=\"middle\">Time (ms)</text>\n"
      << "<text transform=\"translate(20," << kTop + plot_h / 2 << ") rotate(-90)\" text-anchor=\"middle\">Memory ("
      << unit.name << ")</text>\n";
  for (size_t k = 0; k < kPlotOrder.size(); ++k) {  // the legend, top category first as the stack reads
    const size_t at = kPlotOrder.size() - 1 - k;
    const double y = kTop + 10 + 22 * static_cast<double>(k);
    svg << "<rect x=\"" << kLeft + plot_w + 16 << "\" y=\"" << y << "\" width=\"14\" height=\"14\" fill=\""
        << kPlotOrder[at].rgb << "\" fill-opacity=\"0.7\"/><text x=\"" << kLeft + plot_w + 36 << "\" y=\"" << y + 12
        << "\">" << label_of(kPlotOrder[at].category) << "</text>\n";
  }
  svg << "</svg>\n";

  // Beside the chart, each category's bytes at the end and at most, exactly.
  std::ostringstream table;
  table << "<table>\n<tr><th>category</th><th>bytes at the end</th><th>most bytes</th></tr>\n";
  for (const PlottedCategory& plotted : kPlotOrder) {
    const size_t c = static_cast<size_t>(plotted.category);
    int64_t most = 0;
    for (const Bytes& bytes : sizes_) most = std::max(most, bytes[c]);
    table << "<tr><td>" << label_of(plotted.category) << "</td><td>" << sizes_.back()[c] << "</td><td>" << most
          << "</td></tr>\n";
  }
  table << "</table>\n";

  std::ofstream file(path);
  open_check(file, path);
  file << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << title_of(*this) << "</title>\n"
       << "<style>body{font-family:sans-serif;margin:20px}td,th{padding:2px 12px;text-align:right}"
       << "td:first-child,th:first-child{text-align:left}</style></head>\n<body>\n<h2>" << title_of(*this) << "</h2>\n"
       << svg.str() << table.str() << "</body></html>\n";
  file.flush();
  EMBER_CHECK(file.good(), "could not write the memory timeline to '", path, "'");
}

}  // namespace ember::profiler
