// The CUDA caching allocator's rules (cuda/caching_allocator.h), run with host memory standing in
// for the device so they are checked on every machine: PyTorch's rounding, pools, segment sizes,
// best fit, splitting, merging, empty_cache and its figures (fact sheet §7).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>

#include "core/caching_allocator.h"

using namespace ember;
using ember::cuda::allocation_size;
using ember::cuda::CachingAllocator;
using ember::cuda::RawMemory;
using ember::cuda::round_size;

namespace {

constexpr int64_t MiB = 1 << 20;

// Host memory as the "device", with a count of raw allocations still held.
struct HostDevice {
  std::set<void*> segments;
  int64_t limit = INT64_MAX;  // raw allocations larger than this fail, like a full device
  RawMemory raw() {
    return {[this](int64_t nbytes) -> void* {
              if (nbytes > limit) return nullptr;
              void* data = std::malloc(static_cast<size_t>(nbytes));
              segments.insert(data);
              return data;
            },
            [this](void* data) {
              segments.erase(data);
              std::free(data);
            },
            "cuda:0"};
  }
};

}  // namespace

TEST_CASE("requests round up to 512-byte blocks, as torch.cuda counts them", "[caching_allocator]") {
  CHECK(round_size(1) == 512);
  CHECK(round_size(512) == 512);
  CHECK(round_size(513) == 1024);
  CHECK(round_size(4000) == 4096);  // 1000 floats
}

TEST_CASE("segment sizes: 2 MiB for small requests, 20 MiB under 10 MiB, else rounded to 2 MiB",
          "[caching_allocator]") {
  CHECK(allocation_size(512) == 2 * MiB);
  CHECK(allocation_size(MiB) == 2 * MiB);
  CHECK(allocation_size(MiB + 512) == 20 * MiB);
  CHECK(allocation_size(10 * MiB) == 10 * MiB);
  CHECK(allocation_size(11 * MiB) == 12 * MiB);
}

TEST_CASE("one float allocates 512 bytes and reserves a 2 MiB segment", "[caching_allocator]") {
  HostDevice device;
  CachingAllocator allocator(device.raw());
  void* one_float = allocator.allocate(4);
  CHECK(allocator.stats().allocated == 512);
  CHECK(allocator.stats().reserved == 2 * MiB);
  allocator.free(one_float);
  CHECK(allocator.stats().allocated == 0);
  CHECK(allocator.stats().reserved == 2 * MiB);  // freed blocks stay cached
  CHECK(allocator.stats().peak_allocated == 512);
  allocator.empty_cache();
  CHECK(allocator.stats().reserved == 0);
  CHECK(device.segments.empty());
}

TEST_CASE("small blocks are carved from one segment and reused without a new cudaMalloc", "[caching_allocator]") {
  HostDevice device;
  CachingAllocator allocator(device.raw());
  void* a = allocator.allocate(1000);
  void* b = allocator.allocate(3000);
  CHECK(static_cast<char*>(b) == static_cast<char*>(a) + 1024);  // split from the same segment
  CHECK(allocator.stats().allocated == 1024 + 3072);
  CHECK(allocator.stats().segments_allocated == 1);
  allocator.free(a);
  void* c = allocator.allocate(800);  // best fit: the freed 1024-byte block
  CHECK(c == a);
  CHECK(allocator.stats().segments_allocated == 1);
  allocator.free(b);
  allocator.free(c);
  CHECK(allocator.stats().allocated == 0);
}

TEST_CASE("a freed block merges with its free neighbours, so the whole segment can be returned",
          "[caching_allocator]") {
  HostDevice device;
  CachingAllocator allocator(device.raw());
  void* a = allocator.allocate(512);
  void* b = allocator.allocate(512);
  void* c = allocator.allocate(512);
  allocator.free(a);
  allocator.free(c);
  allocator.empty_cache();  // the segment is still partly in use (b): nothing to return
  CHECK(allocator.stats().reserved == 2 * MiB);
  allocator.free(b);  // b merges with a and with c and the rest of the segment
  allocator.empty_cache();
  CHECK(allocator.stats().reserved == 0);
  CHECK(device.segments.empty());
}

TEST_CASE("a large request gets a 20 MiB segment and is split only when over 1 MiB is left", "[caching_allocator]") {
  HostDevice device;
  CachingAllocator allocator(device.raw());
  void* first = allocator.allocate(3 * MiB);
  CHECK(allocator.stats().reserved == 20 * MiB);
  CHECK(allocator.stats().allocated == 3 * MiB);
  void* second = allocator.allocate(16 * MiB + 512);  // 17 MiB - 512 bytes left, but under 1 MiB after it
  CHECK(allocator.stats().reserved == 20 * MiB);
  CHECK(allocator.stats().allocated == 20 * MiB);  // not split: handed out whole
  allocator.free(first);
  allocator.free(second);
  void* reused = allocator.allocate(11 * MiB);  // best fit: the merged 20 MiB block, split
  CHECK(allocator.stats().reserved == 20 * MiB);
  CHECK(allocator.stats().allocated == 11 * MiB);
  allocator.free(reused);
}

TEST_CASE("a request of 10 MiB or more gets its own segment, rounded up to 2 MiB", "[caching_allocator]") {
  HostDevice device;
  CachingAllocator allocator(device.raw());
  void* huge = allocator.allocate(11 * MiB);
  CHECK(allocator.stats().reserved == 12 * MiB);
  CHECK(allocator.stats().allocated == 12 * MiB);  // the 1 MiB left is not worth a split
  allocator.free(huge);
}

TEST_CASE("out of memory frees the cache and retries, then raises PyTorch's error", "[caching_allocator]") {
  HostDevice device;
  device.limit = 20 * MiB;
  CachingAllocator allocator(device.raw());
  allocator.free(allocator.allocate(2 * MiB));  // a cached, wholly free 20 MiB segment
  CHECK(allocator.stats().reserved == 20 * MiB);
  CHECK_THROWS_WITH(allocator.allocate(30 * MiB), Catch::StartsWith("CUDA out of memory. Tried to allocate 30.00 MiB"));
  CHECK(allocator.stats().reserved == 0);  // the retry released the cache first
}
