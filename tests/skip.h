// Catch2 v2 has no SKIP, so a test case that cannot run on this machine says so with a WARN that
// starts with kSkipped and returns; CTest's SKIP_REGULAR_EXPRESSION (tests/CMakeLists.txt) then
// reports it as skipped instead of passed, and a plain run of ember_tests prints the reason.
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "ember.h"

namespace skip {

inline constexpr const char* kSkipped = "ember test skipped:";

#ifdef EMBER_WITH_CUDA
inline constexpr const char* kBuilt = "with";
#else
inline constexpr const char* kBuilt = "without";
#endif

// The tag of the test cases that need a GPU: tools/gpu_check.sh runs exactly these on a GPU
// machine, each in its own process, and fails if one of them skips there.
inline constexpr const char* kGpuTag = "gpu";

// Whether the running test case carries `tag` (written without brackets).
inline bool running_case_has_tag(const std::string& tag) {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  for (const Catch::TestCase& test : Catch::getRegistryHub().getTestCaseRegistry().getAllTests())
    if (test.name == name)
      for (const std::string& t : test.tags)
        if (t == tag) return true;
  return false;
}

// True, after saying so, when there is no CUDA GPU: the calling test case returns at once. The
// case must be tagged [gpu], or the GPU check would never run it: without the tag it fails on
// every machine, and returns without the skip marker, which would make CTest call it skipped.
inline bool without_gpu() {
  if (!running_case_has_tag(kGpuTag)) {
    FAIL_CHECK("a test case that needs a GPU is tagged [gpu], so that tools/gpu_check.sh runs it");
    return true;
  }
  if (ember::cuda::is_available()) return false;
  WARN(kSkipped << " no CUDA GPU on this machine (ember built " << kBuilt << " CUDA)");
  return true;
}

// True, after saying so, when there is a CUDA GPU: for test cases about the machine without one,
// which must not be tagged [gpu] (the GPU check would find them skipped).
inline bool with_gpu() {
  if (running_case_has_tag(kGpuTag)) {
    FAIL_CHECK("a test case about a machine without a GPU is not tagged [gpu]");
    return ember::cuda::is_available();
  }
  if (!ember::cuda::is_available()) return false;
  WARN(kSkipped << " this machine has a CUDA GPU; the case checks the behaviour without one");
  return true;
}

// GCC says which sanitizer it builds with by a macro; clang 14 by __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
inline constexpr bool kUnderSanitizer = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// True, after saying why, in the AddressSanitizer and ThreadSanitizer builds: for test cases that
// time real ops, whose instrumented kernels say nothing about the hardware.
inline bool under_sanitizer(const char* why) {
  if (!kUnderSanitizer) return false;
  WARN(kSkipped << " built with a sanitizer: " << why);
  return true;
}

}  // namespace skip
