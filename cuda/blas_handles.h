// cuBLAS's handles, made ahead of the first product. cublasCreate (and cublasLtCreate) take far
// longer than a product and load cuBLAS's own kernels; made inside the first mm they would be
// counted in that op's GPU time by a profile with the CUDA activity, so the profiler's start makes
// them first (profiler_timeline.cu). Plain C++: tests include it without CUDA's headers.
#pragma once

namespace ember::kernels::cuda {

void create_blas_handles(int device);   // both handles of `device`, if not made yet
bool blas_handles_created(int device);  // whether both exist
// Whether this process has loaded cuBLAS yet: not at start-up, only at the first product or
// handle (cuda/cublas_library.h).
bool cublas_loaded();

}  // namespace ember::kernels::cuda
