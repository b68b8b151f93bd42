// The sampling ops bit for bit as PyTorch's CPU build makes them: randn, rand, randint, randperm,
// bernoulli, normal_ and uniform_ in every dtype, compared by raw bit pattern with
// tests/fixtures/random.json (written by tools/make_fixtures.py from PyTorch 1.13, layouts in
// tools/fixtures/random.py), sequences of calls under one seed, and sampling for CUDA tensors.
// The generator itself is tested in test_random_generator.cpp, the samplers' autograd, version
// and error rules in test_random_rules.cpp, nn::Linear's initialisation, dropout and the
// chapter's sequence in test_random_nn.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/cuda_backend.h"
#include "device_cases.h"
#include "ember.h"
#include "fixture.h"
#include "random_bits.h"
#include "random_cases.h"

using namespace ember;
using namespace random_bits;
using namespace random_cases;
using fixture::json;

namespace {

// Runs every single-call case whose name starts with `prefix` and checks each output's bits.
int check_cases_starting_with(const std::string& prefix) {
  int checked = 0;
  for (const json& c : fixture::load("random.json")["cases"]) {
    const std::string name = c["name"];
    if (name.rfind(prefix, 0) != 0) continue;
    INFO(name);
    const std::vector<Tensor> outputs = run_case(c);
    CHECK(outputs.size() == c["outputs"].size());
    for (size_t i = 0; i < outputs.size(); ++i) CHECK(bit_difference(outputs[i], c["outputs"][i]) == "");
    ++checked;
  }
  return checked;
}

}  // namespace

// ---- acceptance 1: sampled tensors equal PyTorch's bits ----

TEST_CASE("randn(16) with seed 0 equals PyTorch's bits", "[random]") {
  const json& c = find_case("randn float32 16 seed 0");
  manual_seed(0);
  const Tensor t = randn({16});
  CHECK(bit_difference(t, c["outputs"][0]) == "");
  CHECK(t.to_vector<float>()[3] == -0.433878809f);  // the AVX2 value (libm's logf/cosf would give -0.433878839)
}

TEST_CASE("randn float32 of sizes 1, 3, 15, 16, 17, 33, 100 and 4x8 with seeds 0 and 42 equals PyTorch's bits",
          "[random]") {
  CHECK(check_cases_starting_with("randn float32 ") == 16);
}

TEST_CASE("rand float32 of the same sizes and seeds equals PyTorch's bits", "[random]") {
  CHECK(check_cases_starting_with("rand float32 ") == 16);
}

TEST_CASE("randn and rand in float64 equal PyTorch's bits", "[random]") {
  CHECK(check_cases_starting_with("randn float64 ") == 16);
  CHECK(check_cases_starting_with("rand float64 ") == 16);
}

TEST_CASE("randn and rand in bfloat16 and float16 follow PyTorch's rounding rules", "[random]") {
  CHECK(check_cases_starting_with("randn bfloat16 ") == 8);
  CHECK(check_cases_starting_with("randn float16 ") == 8);
  CHECK(check_cases_starting_with("rand bfloat16 ") == 8);
  CHECK(check_cases_starting_with("rand float16 ") == 8);
}

TEST_CASE("Large randn and rand draws hash to PyTorch's bytes", "[random]") {
  REQUIRE(fixture::load("random.json")["hashes"].size() == 5);
  for (const json& h : fixture::load("random.json")["hashes"]) {
    INFO(h["name"].get<std::string>());
    manual_seed(h["seed"].get<uint64_t>());
    const DType dtype = fixture::parse_dtype(h["dtype"]);
    const Tensor t = h["op"] == "randn" ? randn(dims_of(h["sizes"]), dtype) : rand(dims_of(h["sizes"]), dtype);
    CHECK(digest_difference(t, h) == "");
  }
}

TEST_CASE("randint equals PyTorch's values for 32- and 64-bit ranges and every dtype", "[random]") {
  CHECK(check_cases_starting_with("randint ") == 20);
  manual_seed(0);
  CHECK(randint(0, 10, {5}).to_vector<int64_t>() == std::vector<int64_t>{4, 9, 3, 0, 3});
  CHECK(randint(10, {5}).dtype() == kInt64);
}

TEST_CASE("randperm equals PyTorch's permutations", "[random]") {
  CHECK(check_cases_starting_with("randperm ") == 10);
  manual_seed(0);
  CHECK(randperm(10).to_vector<int64_t>() == std::vector<int64_t>{4, 1, 7, 5, 3, 9, 0, 8, 6, 2});
}

TEST_CASE("bernoulli_ sets 1 where a float64 uniform is below p, as PyTorch without MKL", "[random]") {
  CHECK(check_cases_starting_with("bernoulli_ ") == 12);
}

TEST_CASE("bernoulli(probabilities) equals PyTorch's samples", "[random]") {
  CHECK(check_cases_starting_with("bernoulli float") == 4);
  CHECK(check_cases_starting_with("bernoulli bfloat16") == 2);
}

TEST_CASE("normal_ with mean and std equals PyTorch's bits, fused multiply-add included", "[random]") {
  CHECK(check_cases_starting_with("normal_ ") == 16);
}

TEST_CASE("uniform_(-b, b) equals PyTorch's bits, where the fused multiply-add matters", "[random]") {
  CHECK(check_cases_starting_with("uniform_ ") == 12);
  // The fma shows: with separate multiply and add some elements come out one bit off.
  manual_seed(0);
  Tensor t = empty({1000});
  const float b = static_cast<float>(1 / std::sqrt(3.0));
  uniform_(t, -b, b);
  manual_seed(0);
  Generator& generator = default_generator();
  int differing = 0;
  for (float value : t.to_vector<float>()) {
    const float x = static_cast<float>(generator.random() & 0xffffff) * 0x1.0p-24f;
    volatile float scaled = x * (b - -b);  // volatile: keep the multiply rounded on its own
    differing += (scaled + -b) != value;
  }
  CHECK(differing > 0);
}

TEST_CASE("In-place samplers on transposed tensors fill in memory order like PyTorch", "[random]") {
  // (the transposed cases of the uniform_, normal_ and bernoulli_ groups, checked again by name)
  CHECK(check_cases_starting_with("uniform_ 4x8 float32 from=-1 to=3 transposed") == 2);
  CHECK(check_cases_starting_with("normal_ 4x8 float32 mean=0 std=1 transposed") == 2);
  CHECK(check_cases_starting_with("bernoulli_ 3x5 float32 p=0.5 transposed") == 2);
}

TEST_CASE("randn(5) then randn(3) equals randn(8): the cached normal carries over", "[random]") {
  const json& split = find_case("sequence randn 5 then randn 3");
  const json& whole = find_case("sequence randn 8");
  const std::vector<Tensor> parts = run_case(split);
  CHECK(bit_difference(parts[0], split["outputs"][0]) == "");
  CHECK(bit_difference(parts[1], split["outputs"][1]) == "");
  CHECK(bit_difference(cat(parts), whole["outputs"][0]) == "");
}

TEST_CASE("A mixed sequence of calls under one seed equals PyTorch's", "[random]") {
  const json& c = find_case("sequence mixed");
  const std::vector<Tensor> outputs = run_case(c);
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO("call " << i << ": " << c["calls"][i].dump());
    CHECK(bit_difference(outputs[i], c["outputs"][i]) == "");
  }
}

TEST_CASE("Zero-element tensors draw nothing", "[random]") {
  manual_seed(5);
  const GeneratorState before = default_generator().get_state();
  randn({0});
  rand({3, 0});
  randint(0, 5, {0});
  Tensor empty_tensor = empty({0});
  bernoulli_(empty_tensor, 0.5);
  CHECK(default_generator().get_state() == before);
}

// ---- CUDA ----

DEVICE_TEST_CASE("On a device, samples are the CPU generator's numbers copied to the device", "[random]") {
  manual_seed(0);
  const Tensor on_device = randn({40}, Options().device(device));
  manual_seed(0);
  const Tensor on_cpu = randn({40});
  CHECK(on_device.device() == device);
  CHECK(bits_of(on_device.to(kCPU)) == bits_of(on_cpu));
  Tensor target = empty({17}, Options().device(device));
  manual_seed(4);
  uniform_(target, -1, 1);
  Tensor reference = empty({17});
  manual_seed(4);
  uniform_(reference, -1, 1);
  CHECK(bits_of(target.to(kCPU)) == bits_of(reference));
}
