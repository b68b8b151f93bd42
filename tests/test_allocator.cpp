// The CPU block cache: freed blocks are kept by size class and reused, so a steady training loop
// stops taking memory from the OS once warm, while memory_allocated still counts exactly the bytes
// tensors asked for. In the sanitizer build nothing is cached (AddressSanitizer must see every
// overrun), and these tests check that instead.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

namespace {

#ifdef __SANITIZE_ADDRESS__
constexpr bool kCaching = false;
#else
constexpr bool kCaching = true;
#endif

// The small MLP of the benchmarks: Linear 64-64-64-10, batch 32, cross_entropy, SGD.
struct TrainingLoop {
  nn::Sequential model{nn::Linear(64, 64), nn::ReLU(), nn::Linear(64, 64), nn::ReLU(), nn::Linear(64, 10)};
  optim::SGD sgd{model->parameters(), optim::SGDOptions(0.01)};
  Tensor x = randn({32, 64});
  Tensor target = randint(10, {32});

  void step() {
    sgd.zero_grad();
    cross_entropy(model(x), target).backward();
    sgd.step();
  }
};

}  // namespace

TEST_CASE("a steady training loop takes no new memory from the OS once warm", "[core][memory][allocator]") {
  manual_seed(0);
  TrainingLoop loop;
  for (int warm_up = 0; warm_up < 3; ++warm_up) loop.step();
  const int64_t in_use = memory_allocated();
  const int64_t taken = os_allocations();
  for (int i = 0; i < 20; ++i) {
    loop.step();
    CHECK(memory_allocated() == in_use);  // the step's activations and graph are all freed again
  }
  if (kCaching) CHECK(os_allocations() == taken);
  else CHECK(os_allocations() >= taken + 20);  // sanitizer build: every step allocates afresh
}

TEST_CASE("a freed block is cached and reused for a request of its size class", "[core][memory][allocator]") {
  empty_cache();
  const int64_t allocated = memory_allocated();
  const int64_t reserved = memory_reserved();
  const int64_t taken = os_allocations();
  {
    Tensor t = empty({1000});  // 4000 bytes: the 4096-byte class (rounded up to 512 bytes)
    CHECK(memory_allocated() == allocated + 4000);
    CHECK(memory_reserved() == reserved + (kCaching ? 4096 : 4000));
    CHECK(os_allocations() == taken + 1);
  }
  CHECK(memory_allocated() == allocated);
  CHECK(memory_reserved() == reserved + (kCaching ? 4096 : 0));  // kept, not returned
  {
    Tensor t = empty({1010});  // 4040 bytes: the same class, so the cached block
    CHECK(memory_allocated() == allocated + 4040);
    CHECK(os_allocations() == taken + (kCaching ? 1 : 2));
  }
}

TEST_CASE("empty_cache returns cached blocks to the OS and keeps the ones in use", "[core][memory][allocator]") {
  empty_cache();
  const int64_t reserved = memory_reserved();
  Tensor kept = empty({3, 1024, 1024});   // 12 MiB: a large-pool block, rounded to 2 MiB
  { Tensor freed = empty({300, 1024}); }  // 1.2 MB: the 2 MiB large class, now cached
  { Tensor freed = empty({100}); }        // 400 bytes: the 512-byte small class, now cached
  CHECK(memory_reserved() == reserved + (kCaching ? (12 << 20) + (2 << 20) + 512 : 12 << 20));
  empty_cache();
  CHECK(memory_reserved() == reserved + (12 << 20));
}

TEST_CASE("a tensor of the large pool starts on a page, so its 4 KiB rows are whole pages",
          "[core][memory][allocator]") {
  if (!kCaching) return;                     // the sanitizer build's blocks are malloc's, exact and unaligned
  const Tensor large = empty({4096, 1024});  // 16 MiB: the large pool
  const Tensor small = empty({64, 64});      // 16 KiB: the small pool, 64-byte aligned as PyTorch's
  CHECK(reinterpret_cast<uintptr_t>(large.data_ptr<float>()) % 4096 == 0);
  CHECK(reinterpret_cast<uintptr_t>(small.data_ptr<float>()) % 64 == 0);
}
