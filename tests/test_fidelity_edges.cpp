// Edge cases issue 21's second differential fuzz found ember answering otherwise than PyTorch 1.13:
// silent wrong values and flags, valid calls refused, invalid calls accepted. Every expected value,
// flag and text is PyTorch's (tests/fixtures/fidelity.json, tools/fixtures/fidelity_edges.py).
#include <catch2/catch.hpp>

#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;

namespace {
const fixture::json& output(const std::string& name) { return case_named(name)["output"]; }
Tensor bools(std::vector<bool> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return from_vector(std::move(values), {n});
}
}  // namespace

TEST_CASE("add of bools casts alpha to bool, so any non-zero alpha adds", "[fidelity][edges]") {
  CHECK(fixture::compare(add(bools({true, false}), bools({true, false}), -1), output("add_bool_alpha_negative")) ==
        "");  // was [False, False]: -1 * 1 + 1 computed in int64
  CHECK(fixture::compare(add(bools({true, false}), bools({true, true}), 0), output("add_bool_alpha_zero")) == "");
  Tensor self = bools({false, true});
  self.add_(bools({true, false}), -1);
  CHECK(fixture::compare(self, output("add_inplace_bool_alpha_negative")) == "");
}

TEST_CASE("matmul of a vector and a matrix squeezes its product in place: no view, version 1", "[fidelity][edges]") {
  const fixture::json& expected = case_named("matmul_1d_2d_node");
  const Tensor y = matmul(ones({3}, Options().requires_grad()), ones({3, 2}));
  CHECK(y.grad_fn()->name() == expected["grad_fn"].get<std::string>());
  CHECK(y._is_view() == expected["is_view"].get<bool>());
  CHECK(y._version() == expected["version"].get<uint32_t>());
}

TEST_CASE("matmul of a vector and a matrix under no_grad can then be written in place with grad", "[fidelity][edges]") {
  // Its result was a view of an internal product, so the write raised the no_grad-view error.
  const fixture::json& expected = case_named("matmul_1d_2d_no_grad");
  Tensor y;
  {
    NoGradGuard no_grad;
    y = matmul(ones({3}), ones({3, 2}));
  }
  CHECK(y._is_view() == expected["is_view"].get<bool>());
  CHECK(y._version() == expected["version"].get<uint32_t>());
  y.mul_(ones({2}, Options().requires_grad()));
  CHECK(y.grad_fn()->name() == expected["grad_fn_after_mul_"].get<std::string>());
}
