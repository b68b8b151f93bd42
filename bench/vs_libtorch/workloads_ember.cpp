// workloads.h compiled against ember.
#include "backend_ember.h"

// Each side has its own namespace: one name for two different definitions would break the
// one-definition rule when both sides are linked into one program.
namespace backend = ember_backend;

#include "workloads.h"  // after the alias, which it uses

std::vector<vs_libtorch::Workload> ember_workloads() { return workloads(); }
void ember_set_threads(int n) { backend::set_threads(n); }
