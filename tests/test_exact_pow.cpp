// x.pow(e) for a number e gives PyTorch's bits on the CPU, float32 and float64: its special
// exponents by the operations it uses for them, every other one by Sleef's pow over its vectors
// and libm's over the elements they leave (kernels/sleef_pow.h); bfloat16 and float16 with the
// exponent rounded to their dtype, as PyTorch's kernel takes it. Every expected value is PyTorch
// 1.13's under AVX2 (tests/fixtures/exact_pow.json, tools/fixtures/exact_pow.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "ember.h"
#include "fixture.h"

using namespace ember;

namespace {

// Every case of exact_pow.json whose exponent and dtype `pick` accepts, checked exactly: x.pow(e) on all of
// the input (mostly vectors) and on its first 15 elements (all left to the scalar code).
template <typename Pick>
void check_exact_powers(Pick pick) {
  int checked = 0;
  for (const fixture::json& c : fixture::load("exact_pow.json")["cases"]) {
    const double e = fixture::number(c["exponent"]);
    if (!pick(e, c["input"]["dtype"].get<std::string>())) continue;
    INFO(c["name"].get<std::string>());
    const Tensor x = fixture::make(c["input"]);
    CHECK(fixture::compare_exact(x.pow(e), c["output"]) == "");
    CHECK(fixture::compare_exact(x.slice(0, 0, 15).pow(e), c["first_15"]) == "");
    ++checked;
  }
  CHECK(checked > 0);
}

bool is_atens_special_exponent(double e) {
  return e == 0 || e == 1 || e == 2 || e == 3 || e == -2 || e == 0.5 || e == -0.5 || e == -1;
}

}  // namespace

TEST_CASE("pow with a small integer exponent PyTorch has no shortcut for is its bits (4, 5, -3, -4, 7)",
          "[pow][fidelity]") {
  check_exact_powers([](double e, const std::string&) { return e == 4 || e == 5 || e == -3 || e == -4 || e == 7; });
}

TEST_CASE("pow with a fractional or large exponent is PyTorch's bits (2.5, -1.5, 0.25, 1/3, 1e10)", "[pow][fidelity]") {
  check_exact_powers(
      [](double e, const std::string&) { return (std::isfinite(e) && e != std::trunc(e)) || e == 1e10; });
}

TEST_CASE("pow with PyTorch's special exponents is its bits (0, 1, 2, 3, -2, 0.5, -0.5, -1)", "[pow][fidelity]") {
  check_exact_powers([](double e, const std::string&) { return is_atens_special_exponent(e); });
}

TEST_CASE("pow with an infinite or NaN exponent is PyTorch's bits", "[pow][fidelity]") {
  check_exact_powers([](double e, const std::string&) { return !std::isfinite(e); });
}

TEST_CASE("a bfloat16 or float16 power is PyTorch's, the exponent rounded to the dtype (1/3, 0.1)", "[pow][fidelity]") {
  check_exact_powers([](double, const std::string& dtype) { return dtype == "bfloat16" || dtype == "float16"; });
}
