// What the differential replay (test_replay.cpp) found ember doing differently from PyTorch 1.13
// once issue 13's table was fixed, one behaviour per case, with PyTorch's text or value from
// fidelity.json (tools/fixtures/fidelity_replay.py).
#include <catch2/catch.hpp>

#include "ember.h"
#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;

namespace {

std::string message(const std::string& name) { return case_named("replay_" + name)["message"].get<std::string>(); }

Tensor bools() { return from_vector(std::vector<bool>{true, false}, {2}); }
Tensor ints() { return from_vector<int64_t>({1, 2}, {2}); }

}  // namespace

TEST_CASE("subtracting two bools names both, and a number True counts as a bool", "[fidelity][replay]") {
  CHECK_THROWS_WITH(bools() - bools(), message("sub_two_bools"));  // was the one-bool text
  CHECK_THROWS_WITH(bools() - Scalar(true), message("sub_bool_and_true"));
  CHECK_THROWS_WITH(Scalar(true) - bools(), message("rsub_true_and_bool"));
  CHECK_THROWS_WITH(bools() - ints(), message("sub_bool_and_int"));
}

TEST_CASE("in-place subtraction refuses bools before it looks at the result dtype", "[fidelity][replay]") {
  CHECK_THROWS_WITH(bools().sub_(bools()), message("sub_in_place_two_bools"));      // was accepted
  CHECK_THROWS_WITH(bools().sub_(ints()), message("sub_in_place_bool_minus_int"));  // was the cast text
  CHECK_THROWS_WITH(ints().sub_(bools()), message("sub_in_place_int_minus_bool"));  // was accepted
  CHECK_THROWS_WITH(bools().sub_(1.5), message("sub_in_place_bool_minus_number"));  // was the cast text
}

TEST_CASE("matmul of two bool vectors is refused by dot, the op it runs", "[fidelity][replay]") {
  CHECK_THROWS_WITH(matmul(bools(), bools()), message("dot_bool"));  // was addmm's text
}

TEST_CASE("mean over dims keeps its input for backward, as PyTorch's MeanBackward1 does", "[fidelity][replay]") {
  SECTION("so a second backward without retain_graph is refused") {  // was allowed
    Tensor y = ones({2, 3}, Options().requires_grad()).mean({1});
    y.sum().backward();
    CHECK_THROWS_WITH(y.sum().backward(), message("second_backward_mean_dim"));
  }
  SECTION("and so is a change to the input in place") {  // was a silent gradient
    Tensor x = ones({2, 3}, Options().requires_grad());
    Tensor a = x * 1;
    Tensor y = a.mean({1});
    a.add_(1);
    CHECK_THROWS_WITH(y.sum().backward(), message("mean_dim_input_changed"));
  }
}

TEST_CASE("negating a float64 zero gives minus zero on the vectorised path too", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_neg_zeros_float64");
  CHECK(fixture::compare_exact(neg(fixture::make(c["input"])), c["output"]) == "");  // was +0.0 from 0.0
}

TEST_CASE("a leaf's first .grad is at PyTorch's version: 1 when copied in, 0 when a formula made it",
          "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_grad_versions");
  auto grad_version = [](auto make) {
    Tensor x = ones({2, 3}, Options().requires_grad());
    make(x).backward();
    return static_cast<int>(x.grad()._version());
  };
  CHECK(grad_version([](const Tensor& x) { return x.sum(); }) == c["sum"].get<int>());                   // was 0
  CHECK(grad_version([](const Tensor& x) { return x.select(0, 1).sum(); }) == c["select"].get<int>());   // was 1
  CHECK(grad_version([](const Tensor& x) { return x.slice(1, 1, 3).sum(); }) == c["slice"].get<int>());  // was 1
  CHECK(grad_version([](const Tensor& x) { return (x * 2).sum(); }) == c["mul"].get<int>());
}

TEST_CASE("mm of a bool matrix is refused by its kernel before the dtypes are compared", "[fidelity][replay]") {
  // was "expected scalar type Bool but found Long"
  CHECK_THROWS_WITH(mm(bools().view({1, 2}), ints().view({2, 1})), message("mm_bool_and_int"));
}

TEST_CASE("argmax of bools checks the dim first and refuses only when it compares", "[fidelity][replay]") {
  CHECK_THROWS_WITH(argmax(zeros({2, 0}, kBool), 1), message("argmax_bool_empty_dim"));  // was the bool text
  CHECK_THROWS_WITH(argmax(zeros({2, 1}, kBool), 2), message("argmax_bool_dim_out_of_range"));
  CHECK_THROWS_WITH(argmax(zeros({1, 2}, kBool), 1), message("argmax_bool_dim_of_two"));
  CHECK_THROWS_WITH(argmax(zeros({}, kBool), -1), message("argmax_bool_0d_dim"));
  const fixture::json& c = case_named("replay_argmax_bool_uncompared");
  CHECK(fixture::compare_exact(argmax(ones({3, 1}, kBool), 1), c["size_one"]) == "");  // was refused
  CHECK(fixture::compare_exact(argmax(ones({0, 2}, kBool), 1), c["empty"]) == "");
}

TEST_CASE("a bfloat16 tensor in the version error is named CPUBFloat16Type, as PyTorch has no legacy name for it",
          "[fidelity][replay]") {
  Tensor a = ones({2, 1}, Options(kBFloat16).requires_grad()) * 1;
  Tensor y = a * a;
  a.mul_(2);
  CHECK_THROWS_WITH(y.sum().backward(), message("bfloat16_version_error"));  // was torch.BFloat16Tensor
}

TEST_CASE("the gradient of a NaN maximum is shared among the NaNs", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_max_nan_grad");
  Tensor x = fixture::make(c["input"]).requires_grad_();
  x.max().backward();
  CHECK(fixture::compare_exact(x.grad(), c["grad"]) == "");  // was NaN everywhere (0 / 0)
}

TEST_CASE("a float32 operand of a bfloat16 result is rounded to bfloat16 first", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_bfloat16_minus_float32_0d");
  const Tensor x = fixture::make(c["input"]), other = fixture::make(c["other"]);
  CHECK(fixture::compare_exact(x - other, c["output"]) == "");  // was -1.8984375: 1.84 unrounded
  CHECK(fixture::compare_exact(x.clone().sub_(other), c["in_place"]) == "");
}

TEST_CASE("x.mul_(x) then backward: the version error names the node x became", "[fidelity][replay]") {
  Tensor y = 3 - ones({3, 1, 2}, Options().requires_grad());
  y.mul_(y);  // saved y (at version 0) for its own gradient, then wrote it
  CHECK_THROWS_WITH(y.sum().backward(), message("square_in_place_version_error"));
}

TEST_CASE("an in-place op on a slice with gaps of its input fails on the shape, as PyTorch's overlap check "
          "cannot tell",
          "[fidelity][replay]") {
  Tensor t = ones({3, 2});
  CHECK_THROWS_WITH(t.narrow(-1, 0, 1).add_(t), message("add_into_a_slice_of_the_input"));  // was the overlap text
}
