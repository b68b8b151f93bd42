// Printing matches PyTorch character for character: str(t) and repr(t.tolist()) for the tensors
// in tests/fixtures/printing.json (integral floats, decimals, scientific notation, nan/inf,
// float64/bfloat16 suffixes, int64 (beyond 2^53 too), bool, empty and summarised tensors).
#include <catch2/catch.hpp>

#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {
const json& printing_cases() {
  const json& all = fixture::load("printing.json")["cases"];
  REQUIRE(all.size() == 44);
  return all;
}
}  // namespace

TEST_CASE("tensors print exactly as PyTorch prints them", "[printing]") {
  for (const json& c : printing_cases()) {
    INFO("case " << c.value("name", std::string("?")));
    Tensor t = fixture::make(c["input"]);
    CHECK(t.str() == c["str"].get<std::string>());
  }
}

TEST_CASE("tolist_str matches Python's repr of t.tolist()", "[printing]") {
  for (const json& c : printing_cases()) {
    INFO("case " << c.value("name", std::string("?")));
    Tensor t = fixture::make(c["input"]);
    CHECK(t.tolist_str() == c["tolist"].get<std::string>());
  }
}

TEST_CASE("printing shows requires_grad and grad_fn like PyTorch", "[printing]") {
  Tensor w = ones({2}, Options().requires_grad());
  CHECK(w.str() == "tensor([1., 1.], requires_grad=True)");
  CHECK((w * 2).str() == "tensor([2., 2.], grad_fn=<MulBackward1>)");  // C++'s node for `w * 2`
  CHECK(w.sum().str() == "tensor(2., grad_fn=<SumBackward0>)");
}
