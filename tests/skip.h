// Catch2 v2 has no SKIP, so a test case that cannot run on this machine says so with a WARN that
// starts with kSkipped and returns; CTest's SKIP_REGULAR_EXPRESSION (tests/CMakeLists.txt) then
// reports it as skipped instead of passed, and a plain run of ember_tests prints the reason.
#pragma once
#include <catch2/catch.hpp>

#include "ember.h"

namespace skip {

inline constexpr const char* kSkipped = "ember test skipped:";

#ifdef EMBER_WITH_CUDA
inline constexpr const char* kBuilt = "with";
#else
inline constexpr const char* kBuilt = "without";
#endif

// True, after saying so, when there is no CUDA GPU: the calling test case returns at once.
inline bool without_gpu() {
  if (ember::cuda::is_available()) return false;
  WARN(kSkipped << " no CUDA GPU on this machine (ember built " << kBuilt << " CUDA)");
  return true;
}

// True, after saying so, when there is a CUDA GPU: for test cases about the machine without one.
inline bool with_gpu() {
  if (!ember::cuda::is_available()) return false;
  WARN(kSkipped << " this machine has a CUDA GPU; the case checks the behaviour without one");
  return true;
}

#ifdef __SANITIZE_ADDRESS__
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// True, after saying why, in the AddressSanitizer build: for test cases that time real ops, whose
// instrumented kernels say nothing about the hardware.
inline bool under_sanitizer(const char* why) {
  if (!kUnderSanitizer) return false;
  WARN(kSkipped << " built with AddressSanitizer: " << why);
  return true;
}

}  // namespace skip
