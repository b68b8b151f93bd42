// Drawing with gnuplot, as the memory timeline's .png export and the exercises' charts do: whether
// it is installed, a string as a gnuplot script quotes it, and running a script. One place, so that
// a path with a quote in it survives both the script and the shell in every chart.
#pragma once
#include <string>

namespace ember::gnuplot {

// Whether `gnuplot` is on the PATH.
bool found();
// `text` as a string in a gnuplot script: single-quoted, a quote inside doubled.
std::string quoted(const std::string& text);
// Writes `script` to `script_path`, runs gnuplot on it and removes it; gnuplot's exit status.
int run(const std::string& script, const std::string& script_path);

}  // namespace ember::gnuplot
