// CSV files and gnuplot scripts for the exercises' charts (chart.h).
#include "chart.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace exercises {
namespace {

bool gnuplot_found() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// gnuplot strings are single-quoted: a quote inside is doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string draw(const std::string& path_stem, const std::string& script) {
  const std::string csv_line = "  wrote " + path_stem + ".csv\n";
  if (!gnuplot_found())
    return csv_line +
           "  no chart: gnuplot is not installed (apt-get install gnuplot-nox, or run the README's commands)\n";
  const std::string script_path = path_stem + ".gnuplot";
  std::ofstream(script_path) << script;
  const int status = std::system(("gnuplot " + quoted(script_path) + " 2>&1").c_str());
  std::filesystem::remove(script_path);
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
  gp << header(path_stem, style) << "plot ";
  for (size_t c = 1; c < table.columns.size(); ++c)
    gp << (c > 1 ? ", " : "") << quoted(path_stem + ".csv") << " using 1:" << c + 1
       << " with linespoints linewidth 2 title " << quoted(table.columns[c]);
  gp << "\n";
  return draw(path_stem, gp.str());
}

std::string write_bar_chart(const std::string& path_stem, const std::vector<Bar>& bars, const std::string& value_name,
                            const ChartStyle& style) {
  std::ofstream csv(path_stem + ".csv");
  csv << "case," << value_name << ",low,high\n";
  for (const Bar& bar : bars) csv << bar.label << "," << bar.value << "," << bar.low << "," << bar.high << "\n";
  csv.close();

  std::ostringstream gp;
  gp << header(path_stem, style) << "set key below\n"
     << "set style data histograms\n"
     << "set style histogram errorbars gap 2 linewidth 2\n"
     << "set style fill solid 0.6 border -1\n"
     << "set yrange [0:*]\n"
     << "plot " << quoted(path_stem + ".csv") << " using 2:3:4:xtic(1) title "
     << quoted(value_name + " (bar: median; whisker: 10th to 90th percentile)") << "\n";
  return draw(path_stem, gp.str());
}

std::string output_folder(int argc, char** argv) {
  const std::string folder = argc > 1 ? argv[1] : "exercise-output";
  std::filesystem::create_directories(folder);
  return folder;
}

}  // namespace exercises
