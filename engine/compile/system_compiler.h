// Building generated C++ with the system's compiler, and the on-disk cache that makes the second
// run free: Inductor's cpp codecache in miniature. A file is named by a hash of its source, the
// compile command, the compiler's version and the CPU's instruction sets, so that the same graph
// on the same machine is compiled once, by any process. A missing or failing compiler is not an
// error: build() warns once and returns null, and the caller runs the graph eagerly.
//
// The compiler is $EMBER_CXX, else c++; the cache is $EMBER_COMPILE_CACHE, else
// $XDG_CACHE_HOME/ember/compile or ~/.cache/ember/compile.
#pragma once
#include <atomic>
#include <memory>
#include <string>

namespace ember::compiler {

// A loaded shared object (never unloaded: its functions may be held by graphs until exit).
struct Library {
  void* handle = nullptr;
  std::string path;
  void* function(const std::string& name) const;
};

struct BuildCounters {
  std::atomic<int> compiler_runs{0};  // the compiler was run
  std::atomic<int> disk_hits{0};      // the shared object was in the cache directory
  std::atomic<int> memory_hits{0};    // this process had loaded it already
};
BuildCounters& build_counters();

std::string cache_directory();
// The command that builds `source_path` into `library_path`.
std::string compile_command(const std::string& source_path, const std::string& library_path);

// Drops this process's loaded libraries from the lookup (they stay mapped), so that the next
// build() looks in the disk cache as a new process would: for tests of the cache.
void forget_loaded_libraries();

// The library built from `source`, from this process, the disk cache or the compiler; null (with
// one warning) when the compiler is missing or fails.
std::shared_ptr<const Library> build(const std::string& source);

}  // namespace ember::compiler
