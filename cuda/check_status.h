// A CUDA runtime call's status as ember's error, naming the call: one definition for the runtime
// (runtime.cu) and the profiler's timeline (profiler_timeline.cu), which compile as one file in a
// unity build (CMakeLists.txt).
#pragma once
#include <cuda_runtime.h>

#include "core/error.h"

namespace ember::cuda {

inline void check(cudaError_t status, const char* what) {
  EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (", what, ")");
}

}  // namespace ember::cuda
