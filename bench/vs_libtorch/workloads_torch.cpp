// workloads.h compiled against libtorch.
#include "backend_torch.h"

// Each side has its own namespace: one name for two different definitions would break the
// one-definition rule when both sides are linked into one program.
namespace backend = torch_backend;

#include "workloads.h"  // after the alias, which it uses

std::vector<vs_libtorch::Workload> torch_workloads() { return workloads(); }
void torch_set_threads(int n) { backend::set_threads(n); }
bool torch_uses_openblas() { return backend::set_openblas_threads(1); }
