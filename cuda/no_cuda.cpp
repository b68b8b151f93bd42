// The CUDA backend of a build without nvcc: every entry point says so, PyTorch-style.
#include "core/cuda_backend.h"

#include "core/error.h"
#include "kernels/backend.h"

namespace ember::cuda {

namespace {
[[noreturn]] void not_compiled() { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace

bool is_built() { return false; }
bool is_available() { return false; }
int device_count() { return 0; }
void* allocate(int, int64_t) { not_compiled(); }
void free(int, void*) { not_compiled(); }
void copy_bytes(void*, const void*, int64_t, CopyKind) { not_compiled(); }
void synchronize() {}
MemoryStats memory_stats(int) { return {}; }
void reset_peak_memory_stats(int) {}
void empty_cache() {}
bool matmul_allow_tf32() { return false; }
void set_matmul_allow_tf32(bool) {}
void start_timeline() { not_compiled(); }
int32_t mark_timeline() { not_compiled(); }
std::vector<double> read_timeline() { not_compiled(); }
void push_nvtx_range(const char*) { not_compiled(); }
void pop_nvtx_range() {}

}  // namespace ember::cuda

namespace ember::kernels {
void register_cuda_kernels(KernelTable&) {}  // no CUDA kernels: the table stays empty
}  // namespace ember::kernels
