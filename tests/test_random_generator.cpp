// PyTorch's CPU generator in ember, bit for bit: mt19937's stream, 32- and 64-bit draws, blocks of
// draws, seeds (only the low 32 bits reach mt19937), get_state/set_state with the cached normal,
// explicit and fresh generators, and the lock that keeps one sampling call's draws together.
// Kept apart from the sampling ops (test_random_sampling.cpp) because these are the properties
// every sampler relies on; where a test needs PyTorch's numbers it replays a random.json case.
#include <catch2/catch.hpp>

#include <random>
#include <thread>
#include <vector>

#include "ember.h"
#include "fixture.h"
#include "random_bits.h"
#include "random_cases.h"

using namespace ember;
using namespace random_bits;
using namespace random_cases;
using fixture::json;

TEST_CASE("mt19937 seeded with 0 gives PyTorch's first draws and std::mt19937's stream", "[random]") {
  Generator generator(0);
  CHECK(generator.random() == 2357136044u);
  CHECK(generator.random() == 2546248239u);
  CHECK(generator.random() == 3071714933u);
  CHECK(generator.random() == 3626093760u);
  std::mt19937 reference(12345);
  generator.manual_seed(12345);
  for (int i = 0; i < 2000; ++i) REQUIRE(generator.random() == reference());  // across block regenerations
}

TEST_CASE("random64 joins two draws, the first in the high half", "[random]") {
  Generator a(7), b(7);
  const uint64_t high = a.random(), low = a.random();
  CHECK(b.random64() == ((high << 32) | low));
}

TEST_CASE("random_block hands out std::mt19937's stream, mixed with single draws, across regenerations", "[random]") {
  Generator generator(12345);
  std::mt19937 reference(12345);
  std::vector<uint32_t> block(1500);
  for (int64_t count : {1, 623, 1, 1500, 624, 7}) {  // runs that end before, on and after a regeneration
    generator.random_block(block.data(), count);
    for (int64_t i = 0; i < count; ++i) REQUIRE(block[i] == reference());
    REQUIRE(generator.random() == reference());
  }
}

TEST_CASE("Only the low 32 bits of the seed matter and initial_seed keeps all 64", "[random]") {
  const json& wide = find_case("seed 2^32 randn 4");
  CHECK(bit_difference(run_case(wide)[0], wide["outputs"][0]) == "");
  CHECK(initial_seed() == (uint64_t{1} << 32));
  manual_seed(0);
  CHECK(bit_difference(randn({4}), wide["outputs"][0]) == "");
  const json& negative = find_case("seed 2^64-1 randn 4");  // torch.manual_seed(-1) wraps to this
  manual_seed(static_cast<uint64_t>(-1));
  CHECK(bit_difference(randn({4}), negative["outputs"][0]) == "");
  CHECK(initial_seed() == 18446744073709551615ull);
}

TEST_CASE("seed() re-seeds from a non-deterministic source and initial_seed reports it", "[random]") {
  const uint64_t chosen = seed();
  CHECK(initial_seed() == chosen);
  const Tensor first = randn({5});
  manual_seed(chosen);
  CHECK(bits_of(randn({5})) == bits_of(first));
  Generator a, b;
  CHECK(a.seed() != b.seed());  // 64 random bits twice: equal only by a 2^-64 accident
}

TEST_CASE("get_state and set_state replay the same numbers, cached normal included", "[random]") {
  manual_seed(3);
  randn({3});  // odd count on the per-element path: leaves a cached normal behind
  const GeneratorState saved = default_generator().get_state();
  REQUIRE(saved.next_double_normal.has_value());
  const json first = bits_of(randn({5}));
  const json first_block = bits_of(rand({40}, kFloat64));
  default_generator().set_state(saved);
  CHECK(bits_of(randn({5})) == first);
  CHECK(bits_of(rand({40}, kFloat64)) == first_block);
}

TEST_CASE("manual_seed forgets the cached normal value", "[random]") {
  manual_seed(0);
  randn({3});
  REQUIRE(default_generator().get_state().next_double_normal.has_value());
  manual_seed(0);
  CHECK_FALSE(default_generator().get_state().next_double_normal.has_value());
  CHECK(default_generator().get_state() == Generator(0).get_state());
}

TEST_CASE("An explicit generator leaves the default generator alone", "[random]") {
  const json& c = find_case("own generator seed 7 then default");
  const std::vector<Tensor> outputs = run_case(c);
  for (size_t i = 0; i < outputs.size(); ++i) CHECK(bit_difference(outputs[i], c["outputs"][i]) == "");
  manual_seed(0);
  CHECK(bit_difference(randn({3}), c["outputs"][1]) == "");  // as if the other calls never happened
}

TEST_CASE("A fresh Generator starts from PyTorch's default seed 67280421310721", "[random]") {
  const json& c = find_case("fresh generator");
  const std::vector<Tensor> outputs = run_case(c);
  for (size_t i = 0; i < outputs.size(); ++i) CHECK(bit_difference(outputs[i], c["outputs"][i]) == "");
  CHECK(Generator().initial_seed() == 67280421310721ull);
}

TEST_CASE("Sampling calls lock the generator: two threads each get one whole run", "[random]") {
  manual_seed(11);
  const json first = bits_of(randn({4000}));
  const json second = bits_of(randn({4000}));
  manual_seed(11);
  Tensor a, b;
  std::thread one([&] { a = randn({4000}); });
  std::thread two([&] { b = randn({4000}); });
  one.join();
  two.join();
  const json bits_a = bits_of(a), bits_b = bits_of(b);
  CHECK(((bits_a == first && bits_b == second) || (bits_a == second && bits_b == first)));
}
