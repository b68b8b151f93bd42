// float32 and float64 sums and means give PyTorch's bits, not just its value to a tolerance: ember
// adds in the order ATen's CPU kernel does (kernels/cascade_sum.h). Every expected value is PyTorch
// 1.13's under AVX2 (tests/fixtures/exact_sums.json, tools/fixtures/exact_sums.py); the inputs
// are made here from each case's seed, as the generator made them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ember.h"
#include "fixture.h"

using namespace ember;

namespace {

// tools/fixtures/exact_sums.py's `values`: splitmix64 from `seed`, then a sign, a power of two in
// [2^-8, 2^8] and `mantissa_bits` random bits below the leading one.
std::vector<double> exact_sum_inputs(uint64_t seed, int64_t count, int mantissa_bits) {
  std::vector<double> out;
  uint64_t state = seed;
  for (int64_t i = 0; i < count; ++i) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const int exponent = static_cast<int>((z >> 32) % 17) - 8;
    const uint64_t mantissa = z & ((uint64_t{1} << mantissa_bits) - 1);
    const double magnitude =
        std::ldexp(static_cast<double>((uint64_t{1} << mantissa_bits) + mantissa), exponent - mantissa_bits);
    out.push_back(z >> 63 ? -magnitude : magnitude);
  }
  return out;
}

// The case's input, made from its seed, and its op applied.
Tensor exact_sum_result(const fixture::json& c) {
  const DType dtype = c["output"]["dtype"] == "float32" ? kFloat32 : kFloat64;
  const Dims shape = fixture::dims_arg(c["shape"]);
  const Tensor x = from_vector(exact_sum_inputs(c["seed"].get<uint64_t>(), product(shape), dtype == kFloat32 ? 23 : 52),
                               shape, dtype);
  const bool mean = c["op"] == "mean";
  if (c["dims"].is_null()) return mean ? x.mean() : x.sum();
  const Dims dims = fixture::dims_arg(c["dims"]);
  return mean ? x.mean(dims) : x.sum(dims);
}

std::vector<fixture::json> exact_sum_cases(const std::string& prefix) {
  std::vector<fixture::json> cases;
  for (const fixture::json& c : fixture::load("exact_sums.json")["cases"])
    if (c["name"].get<std::string>().rfind(prefix, 0) == 0) cases.push_back(c);
  return cases;
}

void check_exact_sums(const std::string& prefix) {
  const std::vector<fixture::json> cases = exact_sum_cases(prefix);
  REQUIRE(!cases.empty());
  for (const fixture::json& c : cases) {
    INFO(c["name"].get<std::string>());
    CHECK(fixture::compare_exact(exact_sum_result(c), c["output"]) == "");
  }
}

}  // namespace

TEST_CASE("the inputs of exact_sums.json are the generator's", "[sum][fixtures]") {
  // splitmix64's first output for seed 1 is 0x910a2dec89025cc1 (its reference implementation):
  // its top bit the sign (negative), its high half modulo 17 the exponent + 8, its low 23 bits the
  // mantissa.
  const double first = exact_sum_inputs(1, 1, 23)[0];
  const int exponent = static_cast<int>(0x910a2decull % 17) - 8;
  CHECK(first == -std::ldexp(static_cast<double>((1 << 23) + (0x910a2dec89025cc1ull & 0x7fffff)), exponent - 23));
}

TEST_CASE("a 1-D float32 or float64 sum gives PyTorch's bits at every length", "[sum][fidelity]") {
  check_exact_sums("sum_float");
}

TEST_CASE("a sum over the last dim gives PyTorch's bits, short rows too", "[sum][fidelity]") {
  check_exact_sums("sum_rows_");
  check_exact_sums("sum_last_two_");
}

TEST_CASE("a sum over leading dims gives PyTorch's bits, single columns and one row too", "[sum][fidelity]") {
  check_exact_sums("sum_columns_");
  check_exact_sums("sum_leading_two_");
}

TEST_CASE("a sum over dims in the middle gives PyTorch's bits, batch by batch of columns", "[sum][fidelity]") {
  check_exact_sums("sum_middle_");
}

TEST_CASE("a sum of a whole 2-D tensor gives PyTorch's bits", "[sum][fidelity]") { check_exact_sums("sum_all_"); }

TEST_CASE("mean is PyTorch's sum divided by the count, every bit", "[mean][fidelity]") { check_exact_sums("mean_"); }
