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
};

// Writes `table` to <path_stem>.csv and draws every column after the first against the first as a
// line chart in <path_stem>.png. Returns what it wrote, one line per file, for the program to print.
std::string write_line_chart(const std::string& path_stem, const Table& table, const ChartStyle& style);

// One bar per label with an error bar from low to high (a median with its spread).
struct Bar {
  std::string label;
  double value = 0, low = 0, high = 0;
};
std::string write_bar_chart(const std::string& path_stem, const std::vector<Bar>& bars, const std::string& value_name,
                            const ChartStyle& style);

// The folder the exercise programs write into: their first argument, else ./exercise-output.
// Created when missing.
std::string output_folder(int argc, char** argv);

}  // namespace exercises
