// Runs the compiler, keeps its output by hash, loads it. See system_compiler.h.
#include "system_compiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "codegen.h"
#include "core/cpu_capabilities.h"
#include "core/error.h"
#include "core/warning.h"

namespace ember::compiler {

namespace {

std::string setting_or(const char* name, const std::string& otherwise) {
  const char* value = std::getenv(name);
  return value && *value ? value : otherwise;
}

std::string compiler_command() { return setting_or("EMBER_CXX", "c++"); }

std::string quoted_for_shell(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command; its exit status, and what it printed in `output`.
int run_command(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  return pclose(pipe);
}

// The first line the compiler prints for --version, once per process: part of every hash.
const std::string& compiler_version() {
  static const std::string version = [] {
    std::string output;
    run_command(quoted_for_shell(compiler_command()) + " --version", output);
    return output.substr(0, output.find('\n'));
  }();
  return version;
}

// FNV-1a, 64 bits: a stable name for a text across processes and builds.
std::string stable_hash(const std::string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash));
  return name;
}

void write_atomically(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path partial = path.string() + ".partial" + std::to_string(getpid());
  std::ofstream(partial) << text;
  std::filesystem::rename(partial, path);
}

std::shared_ptr<const Library> load_library(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return nullptr;
  return std::make_shared<const Library>(Library{handle, path});
}

}  // namespace

void* Library::function(const std::string& name) const { return dlsym(handle, name.c_str()); }

BuildCounters& build_counters() {
  static BuildCounters counters;
  return counters;
}

std::string cache_directory() {
  if (const char* set = std::getenv("EMBER_COMPILE_CACHE"); set && *set) return set;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/ember/compile";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ember/compile";
  return str_cat("/tmp/ember-compile-", getuid());
}

// -ffp-contract=off: each operation rounds as eager's own kernel does (no multiply-add fused across
// two ops), so fused arithmetic gives eager's bits; -fno-math-errno lets sqrt vectorise, changing
// no result. -mprefer-vector-width=512: GCC's default for AVX-512 CPUs is 256-bit vectors; the
// demo block's kernels, compute-bound on one core (sigmoid's exp and division), ran 15-25% faster
// with 512 (nothing changes where there is no AVX-512).
std::string compile_command(const std::string& source_path, const std::string& library_path) {
  const std::string folder = std::filesystem::path(source_path).parent_path().string();
  return str_cat(quoted_for_shell(compiler_command()),
                 " -O3 -march=native -mprefer-vector-width=512 -fno-math-errno -ffp-contract=off -fopenmp -fPIC"
                 " -shared -std=c++17 -I",
                 quoted_for_shell(folder), " -o ", quoted_for_shell(library_path), " ", quoted_for_shell(source_path));
}

namespace {
std::mutex libraries_mutex;
std::map<std::string, std::shared_ptr<const Library>> loaded_libraries;  // by hash
}  // namespace

void forget_loaded_libraries() {
  std::lock_guard<std::mutex> lock(libraries_mutex);
  loaded_libraries.clear();
}

std::shared_ptr<const Library> build(const std::string& source) {
  const std::string hash = stable_hash(str_cat(source, "\n", prelude(), "\n", compile_command("", ""), "\n",
                                               compiler_version(), "\n", cpu_capabilities().str()));
  std::lock_guard<std::mutex> lock(libraries_mutex);
  if (auto found = loaded_libraries.find(hash); found != loaded_libraries.end()) {
    ++build_counters().memory_hits;
    return found->second;
  }
  std::error_code ignored;
  const std::filesystem::path folder = cache_directory();
  std::filesystem::create_directories(folder, ignored);
  const std::string library_path = (folder / (hash + ".so")).string();
  std::shared_ptr<const Library> library;
  if (std::filesystem::exists(library_path) && (library = load_library(library_path))) {
    ++build_counters().disk_hits;
  } else {
    const std::filesystem::path source_path = folder / (hash + ".cpp");
    const std::filesystem::path prelude_path = folder / "ember_kernel_prelude.h";
    std::string output;
    int status = -1;
    try {
      write_atomically(prelude_path, prelude());  // the one this build includes
      write_atomically(source_path, source);
      const std::string partial = library_path + ".partial" + std::to_string(getpid());
      ++build_counters().compiler_runs;
      status = run_command(compile_command(source_path.string(), partial), output);
      if (status == 0) std::filesystem::rename(partial, library_path);
    } catch (const std::exception& error) {
      output = error.what();
    }
    if (status == 0) library = load_library(library_path);
    if (!library) {
      std::string first_line = output.substr(0, output.find('\n'));
      if (first_line.empty()) {
        const char* load_error = dlerror();
        first_line = status != 0 ? "no output" : load_error ? load_error : "dlopen failed";
      }
      warn_once(str_cat("ember.compile: building the generated kernels with `", compiler_command(), "` failed (",
                        first_line, "); the compiled function runs eagerly instead"));
      return nullptr;
    }
  }
  loaded_libraries[hash] = library;
  return library;
}

}  // namespace ember::compiler
