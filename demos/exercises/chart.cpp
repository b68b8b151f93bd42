// CSV files and gnuplot scripts for the exercises' charts (chart.h).
#include "chart.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "profiler/gnuplot.h"

namespace exercises {
namespace {

using ember::gnuplot::quoted;

std::string draw(const std::string& path_stem, const std::string& script) {
  const std::string csv_line = "  wrote " + path_stem + ".csv\n";
  if (!ember::gnuplot::found())
    return csv_line +
           "  no chart: gnuplot is not installed (apt-get install gnuplot-nox, or run the README's commands)\n";
  const int status = ember::gnuplot::run(script, path_stem + ".gnuplot");
  if (status != 0) return csv_line + "  no chart: gnuplot failed (status " + std::to_string(status) + ")\n";
  return csv_line + "  wrote " + path_stem + ".png\n";
}

std::string header(const std::string& path_stem, const ChartStyle& style) {
  std::ostringstream gp;
  gp << "set terminal pngcairo noenhanced size 900,540 font 'sans,11'\n"
     << "set output " << quoted(path_stem + ".png") << "\n"
     << "set datafile separator ','\n"
     << "set datafile columnheaders\n"
     << "set title " << quoted(style.title) << "\n"
     << "set xlabel " << quoted(style.x_label) << "\n"
     << "set ylabel " << quoted(style.y_label) << "\n"
     << "set key top left box opaque\n"
     << "set grid ytics\n";
  for (size_t i = 0; i < style.notes.size(); ++i)
    gp << "set label " << i + 1 << " " << quoted(style.notes[i]) << " at graph 0.02, graph " << 0.95 - 0.06 * i
       << " left front\n";
  return gp.str();
}

}  // namespace

std::string write_line_chart(const std::string& path_stem, const Table& table, const ChartStyle& style) {
  std::ofstream csv(path_stem + ".csv");
  for (size_t c = 0; c < table.columns.size(); ++c) csv << (c ? "," : "") << table.columns[c];
  csv << "\n";
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size(); ++c) csv << (c ? "," : "") << row[c];
    csv << "\n";
  }
  csv.close();

  std::ostringstream gp;
  gp << header(path_stem, style);
  const bool log_y = style.log_y_floor > 0;
  const bool inset = log_y && style.linear_inset;
  if (inset) gp << "set multiplot\n";
  if (log_y) gp << "set logscale y\nset yrange [" << style.log_y_floor / 2 << ":*]\n";
  // gnuplot's columns count from 1; with a log axis each value is raised to the floor.
  auto plot = [&](bool floored, bool titled) {
    gp << "plot ";
    for (size_t c = 1; c < table.columns.size(); ++c) {
      const std::string column = std::to_string(c + 1), floor = std::to_string(style.log_y_floor);
      const std::string y = floored ? "(($" + column + ") < " + floor + " ? " + floor + " : $" + column + ")" : column;
      gp << (c > 1 ? ", " : "") << quoted(path_stem + ".csv") << " using 1:" << y << " with linespoints linewidth 2 "
         << (titled ? "title " + quoted(table.columns[c]) : std::string("notitle"));
    }
    gp << "\n";
  };
  plot(log_y, true);
  if (inset) {
    // A white panel over the main chart's lines, then the same lines on a linear axis.
    gp << "set object 1 rectangle from screen 0.55,0.18 to screen 0.962,0.64 fillcolor rgb 'white' "
       << "fillstyle solid border lc rgb 'grey' behind\n"
       << "unset logscale y\nset yrange [0:*]\nunset label\nunset key\nset format y '%.1s%c'\n"
       << "set xlabel ''\nset ylabel ''\nset title 'the same, linear axis' font 'sans,9'\n"
       << "set origin 0.555,0.19\nset size 0.4,0.43\n";
    plot(false, false);
    gp << "unset multiplot\n";
  }
  return draw(path_stem, gp.str());
}

std::string write_bar_chart(const std::string& path_stem, const std::vector<Bar>& bars, const std::string& value_name,
                            const ChartStyle& style) {
  std::vector<std::string> groups = style.groups;  // a bar's colour is its group's place here
  for (const Bar& bar : bars)
    if (std::find(groups.begin(), groups.end(), bar.group) == groups.end()) groups.push_back(bar.group);
  const bool grouped = groups.size() > 1 || !groups.front().empty();
  std::ofstream csv(path_stem + ".csv");
  csv << "case," << value_name << ",low,high,group\n";
  for (const Bar& bar : bars)
    csv << bar.label << "," << bar.value << "," << bar.low << "," << bar.high << ","
        << std::find(groups.begin(), groups.end(), bar.group) - groups.begin() + 1 << "\n";
  csv.close();

  std::ostringstream gp;
  gp << header(path_stem, style) << (grouped ? "set key top right\n" : "unset key\n")
     << "set style fill solid 0.6 border -1\n"
     << "set boxwidth 0.6\n"
     << "set yrange [0:*]\n"
     << "set offsets 0, 0, graph " << 0.08 * (style.notes.size() + 1) << ", 0\n"  // room above the bars for the notes
     << "set xrange [-0.6:" << bars.size() - 0.4 << "]\n"
     << "set xtics rotate by -20\n"
     << "plot " << quoted(path_stem + ".csv") << " using 0:2:5:xtic(1) with boxes lc variable notitle, "
     << "'' using 0:2:3:4 with yerrorbars lc 'black' pointtype -1 notitle";
  if (grouped)
    for (size_t g = 0; g < groups.size(); ++g)
      if (std::any_of(bars.begin(), bars.end(), [&](const Bar& bar) { return bar.group == groups[g]; }))
        gp << ", keyentry with boxes lc " << g + 1 << " title " << quoted(groups[g]);
  gp << "\n";
  return draw(path_stem, gp.str());
}

}  // namespace exercises
