// Eigen, included with its own warnings silenced. Built for AVX-512, Eigen's packet reductions
// call GCC's intrinsics (_mm512_extractf64x4_pd and friends), whose bodies GCC 12 inlines into
// the caller and then warns about as "(may be) used uninitialized" (a false positive inside GCC's
// own headers: `__m256d __Y = __Y;`). -isystem does not hide a warning that surfaces in ember's
// function after inlining, so every file takes Eigen through this header: the pragma covers
// exactly the lines Eigen and the intrinsics headers bring in, and ember's own code keeps every
// warning.
#pragma once

#pragma GCC diagnostic push
#if !defined(__clang__)  // a GCC warning (clang, for tools/thread_sanitizer.sh, does not know it)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>  // first included here, so its lines lie inside the pragma's range

#include <Eigen/Core>
#pragma GCC diagnostic pop
