// What every demo program does with its command line and its failures: `--help` prints its usage,
// an unexpected argument or an error (a file where the output folder should be, a folder it cannot
// write) ends it with one line and exit status 1, never an abort. And the one way they hand a path
// to another program through the shell (dot; gnuplot goes through engine/profiler/gnuplot.h),
// quoted so that any path survives.
#pragma once
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

namespace demos {

// The program's name as typed, without its folder.
inline std::string program_name(char** argv) { return std::filesystem::path(argv[0]).filename().string(); }

// Runs body(), the program itself. `arguments` is its usage after the name ("" when it takes none,
// "[output folder]" for the exercises); `max_arguments` how many it accepts.
template <typename Body>
int run(int argc, char** argv, const std::string& arguments, int max_arguments, Body body) {
  const std::string name = program_name(argv);
  const std::string usage = "usage: " + name + (arguments.empty() ? "" : " " + arguments);
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf("%s\n", usage.c_str());
    return 0;
  }
  if (argc - 1 > max_arguments) {
    std::fprintf(stderr, "%s: unexpected argument '%s' (%s)\n", name.c_str(), argv[max_arguments + 1], usage.c_str());
    return 1;
  }
  try {
    return body();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), error.what());
    return 1;
  }
}

// The folder a program writes into: its first argument, else `fallback`; made when missing.
inline std::string output_folder(int argc, char** argv, const std::string& fallback) {
  const std::string folder = argc > 1 ? argv[1] : fallback;
  if (std::filesystem::exists(folder) && !std::filesystem::is_directory(folder))
    throw std::runtime_error("cannot write into '" + folder + "': it is a file, not a folder");
  std::filesystem::create_directories(folder);
  return folder;
}

// `text` as one word for /bin/sh: single-quoted, each quote inside written as '\''.
inline std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace demos
