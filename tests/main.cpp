// The test runner: Catch2's session plus a listener that checks, when a test case's body has
// returned, that memory_allocated is back where it was when the body started, on the CPU, the
// checking device and every CUDA device (every tensor, graph and gradient the case made has been
// freed). A leak is a
// failed assertion of that test case, reported by Catch like any other.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <vector>

#include "ember.h"

namespace {

std::vector<ember::Device> every_device() {
  std::vector<ember::Device> devices{ember::kCPU, ember::checked_device(0)};
  for (int i = 0; i < ember::cuda::device_count(); ++i) devices.push_back(ember::cuda_device(i));
  return devices;
}

std::vector<int64_t> bytes_allocated(const std::vector<ember::Device>& devices) {
  std::vector<int64_t> bytes;
  for (const ember::Device& device : devices) bytes.push_back(ember::memory_allocated(device));
  return bytes;
}

// Catch runs a test case's body once per path through its SECTIONs, each run inside an outermost
// section named after the case; that section ends after the body's locals are destroyed and before
// the case's totals are taken, so an assertion made there counts against the case.
struct MemoryListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  std::vector<ember::Device> devices = every_device();
  std::vector<int64_t> at_start;
  int depth = 0;

  void sectionStarting(const Catch::SectionInfo&) override {
    if (depth++ == 0) at_start = bytes_allocated(devices);
  }
  void sectionEnded(const Catch::SectionStats&) override {
    if (--depth != 0) return;
    const std::vector<int64_t> now = bytes_allocated(devices);
    for (size_t i = 0; i < devices.size(); ++i)
      if (now[i] != at_start[i])
        FAIL_CHECK("memory check: memory_allocated(" << devices[i].str() << ") was " << at_start[i]
                                                     << " bytes when the test case started and " << now[i]
                                                     << " when it ended");
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(MemoryListener)

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
