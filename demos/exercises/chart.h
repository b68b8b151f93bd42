// Charts for the chapter's exercises: each figure is written as a CSV file (the numbers, for
// anyone who wants to plot them differently) and drawn from that CSV as a PNG by gnuplot
// (Debian's gnuplot-nox, which the README's commands install). Without gnuplot the CSV is still
// written and the program says how to get the picture.
#pragma once
#include <string>
#include <vector>

namespace exercises {

// A table of numbers with named columns: one CSV row per x value.
struct Table {
  std::vector<std::string> columns;       // the header: columns[0] is the x column
  std::vector<std::vector<double>> rows;  // each row has columns.size() values
};

// How the chart looks: a title, axis labels with units, and one legend entry per plotted column.
struct ChartStyle {
  std::string title;
  std::string x_label;
  std::string y_label;
  // A positive floor draws the y axis on a log scale, each value below the floor at the floor: lines
  // that differ by orders of magnitude (bytes per step: tens of thousands, 4, 0) all stay visible.
  double log_y_floor = 0;
  // With the log axis, a small inset draws the same lines on a linear axis too: a line that grows
  // by the same bytes every step is straight there, where the log axis bends it as if it levelled off.
  bool linear_inset = false;
  // Lines of text written in the chart's top right corner (the figures a reader should see).
  std::vector<std::string> notes;
  // A bar chart's groups in legend order, each with a colour of its own whatever the data holds
  // (else the groups the bars name, in order of appearance).
  std::vector<std::string> groups;
};

// Writes `table` to <path_stem>.csv and draws every column after the first against the first as a
// line chart in <path_stem>.png. Returns what it wrote, one line per file, for the program to print.
std::string write_line_chart(const std::string& path_stem, const Table& table, const ChartStyle& style);

// One bar per label with an error bar from low to high (a median with its spread). Bars of the
// same group share a colour, and each group gets a legend entry (no groups: one colour, no legend).
struct Bar {
  std::string label;
  double value = 0, low = 0, high = 0;
  std::string group;
};
std::string write_bar_chart(const std::string& path_stem, const std::vector<Bar>& bars, const std::string& value_name,
                            const ChartStyle& style);

}  // namespace exercises
