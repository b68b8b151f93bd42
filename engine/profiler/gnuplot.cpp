// Drawing with gnuplot (gnuplot.h).
#include "gnuplot.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ember::gnuplot {

namespace {
// `text` as one word for /bin/sh: single-quoted, each quote inside written as '\''.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

bool found() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

int run(const std::string& script, const std::string& script_path) {
  std::ofstream(script_path) << script;
  const int status = std::system(("gnuplot " + shell_quoted(script_path) + " 2>&1").c_str());
  std::filesystem::remove(script_path);
  return status;
}

}  // namespace ember::gnuplot
