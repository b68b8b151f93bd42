// The test runner: Catch2's session plus a listener that checks, after every test case, that
// memory_allocated(cpu) is back where it was when the case started (every tensor, graph and
// gradient the case made has been freed). A case that leaks fails the run.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "ember.h"

namespace {

int leaking_cases = 0;

struct MemoryListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  int64_t at_start = 0;

  void testCaseStarting(const Catch::TestCaseInfo&) override { at_start = ember::memory_allocated(ember::kCPU); }
  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    const int64_t now = ember::memory_allocated(ember::kCPU);
    if (now != at_start) {
      ++leaking_cases;
      std::fprintf(stderr,
                   "memory check failed: test case \"%s\" started with %lld bytes allocated and ended with %lld\n",
                   stats.testInfo.name.c_str(), static_cast<long long>(at_start), static_cast<long long>(now));
    }
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(MemoryListener)

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  return failed != 0 ? failed : (leaking_cases != 0 ? 1 : 0);
}
