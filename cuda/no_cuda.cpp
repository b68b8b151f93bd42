// The CUDA backend of a build without nvcc: every entry point says so, PyTorch-style.
#include "cuda_backend.h"

#include "error.h"

namespace ember::cuda {

namespace {
[[noreturn]] void not_compiled() { throw Error("Torch not compiled with CUDA enabled"); }
}  // namespace

bool is_available() { return false; }
int device_count() { return 0; }
void* allocate(int, int64_t) { not_compiled(); }
void free(int, void*) { not_compiled(); }
void copy_bytes(void*, const void*, int64_t, CopyKind) { not_compiled(); }
void synchronize() {}

}  // namespace ember::cuda
