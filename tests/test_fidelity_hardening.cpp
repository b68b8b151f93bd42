// Silent wrong answers at the edges that issue 40's third reliability run found: integer ranges past
// 2^53, bfloat16 matrix-vector rounding, the vectorised exp and log at subnormals and infinities,
// pow's special exponents, and an in-place op on a view whose base came to require grad. Every
// expected value and text is PyTorch 1.13's (tests/fixtures/fidelity.json,
// tools/fixtures/fidelity_hardening.py).
#include <catch2/catch.hpp>

#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;
using fidelity::output;

namespace {
constexpr int64_t kTwoTo53 = int64_t{1} << 53, kTwoTo60 = int64_t{1} << 60, kTwoTo62 = int64_t{1} << 62;
}  // namespace

TEST_CASE("an int64 arange is exact beyond the integers a double holds", "[fidelity][hardening]") {
  // Computed in double, arange(2^53, 2^53 + 4) repeated values and the last two were empty.
  CHECK(fixture::compare(arange(kTwoTo53, kTwoTo53 + 4), output("arange_int64_beyond_2_53")) == "");
  CHECK(fixture::compare(arange(INT64_MAX - 1, INT64_MAX), output("arange_int64_at_its_max")) == "");
  CHECK(fixture::compare(arange(kTwoTo60, kTwoTo60 + 5, 2), output("arange_int64_2_60_step_2")) == "");
  CHECK(fixture::compare(arange(kTwoTo62, kTwoTo62 - 7, -3), output("arange_int64_negative_step")) == "");
}

TEST_CASE("an int64 arange takes its bounds and step truncated to int64", "[fidelity][hardening]") {
  CHECK(fixture::compare(arange(0.5, 3.7, 1, kInt64), output("arange_int64_floating_bounds")) == "");
  CHECK_THROWS_WITH(arange(0, 10, 0.5, kInt64), case_named("arange_int64_step_truncated_to_zero")["message"]);
}

TEST_CASE("an int64 arange it cannot hold is refused with PyTorch's texts", "[fidelity][hardening]") {
  CHECK_THROWS_WITH(arange(INT64_MIN, INT64_MAX), case_named("arange_int64_whole_range")["message"]);
  CHECK_THROWS_WITH(arange(0, 1e19, 1, kInt64), case_named("arange_int64_bound_too_large")["message"]);
}

TEST_CASE("a bfloat16 matrix times vector rounds each step only up to 4096 matrix elements", "[fidelity][hardening]") {
  // Rounding every step, a sum of ones stops growing at 256; above 4096 elements PyTorch sums in
  // float32 (oneDNN) and rounds once.
  const Options bf16(kBFloat16);
  CHECK(fixture::compare_exact(matmul(ones({8, 1024}, bf16), ones({1024}, bf16)), output("mv_bf16_8x1024_ones")) == "");
  CHECK(fixture::compare_exact(matmul(ones({4, 1024}, bf16), ones({1024}, bf16)), output("mv_bf16_4x1024_ones")) == "");
  CHECK(fixture::compare_exact(matmul(ones({5000}, bf16), ones({5000}, bf16)), output("dot_bf16_5000_ones")) == "");
  CHECK(fixture::compare_exact(matmul(ones({4096}, bf16), ones({4096}, bf16)), output("dot_bf16_4096_ones")) == "");
}

TEST_CASE("a folded bfloat16 batch times vector and an autocast matmul follow the same rule", "[fidelity][hardening]") {
  const Options bf16(kBFloat16);
  CHECK(fixture::compare_exact(matmul(ones({2, 4, 1024}, bf16), ones({1024}, bf16)),
                               output("matmul_bf16_3d_1d_ones")) == "");
  AutocastGuard autocast(DeviceType::CPU);
  CHECK(fixture::compare_exact(matmul(ones({8, 1024}), ones({1024})), output("matmul_autocast_8x1024_ones")) == "");
}

TEST_CASE("a large bfloat16 mv of other values sums in float32 as PyTorch's does", "[fidelity][hardening]") {
  const fixture::json& expected = case_named("mv_bf16_8x1024_positive");
  CHECK(fixture::compare(matmul(fixture::make(expected["matrix"]), fixture::make(expected["vector"])),
                         expected["output"]) == "");
}

TEST_CASE("the vectorised log is exact at subnormal inputs", "[fidelity][hardening]") {
  // It clamped them to the smallest normal number: log(1e-40f) was -87.34, not -92.10.
  CHECK(fixture::compare(log(full({64}, 1e-40)), output("log_subnormal_float32")) == "");
  CHECK(fixture::compare(log(full({64}, 1e-310, kFloat64)), output("log_subnormal_float64")) == "");
}

TEST_CASE("the vectorised exp is exact below the normal range and near overflow", "[fidelity][hardening]") {
  // float64 exp(-inf) was 5.6e-309; float32 results below the smallest normal were 0, and
  // exp(88.72f) overflowed to inf.
  CHECK(fixture::compare_exact(exp(full({64}, -INFINITY, kFloat64)), output("exp_minus_inf_float64")) == "");
  CHECK(fixture::compare_exact(exp(full({64}, -100.0)), output("exp_below_normal_float32")) == "");
  CHECK(fixture::compare(exp(full({64}, 88.72)), output("exp_near_overflow_float32")) == "");
}

TEST_CASE("softmax gives exact zeros where its input is -inf", "[fidelity][hardening]") {
  const fixture::json& expected = case_named("softmax_masked_float64");
  CHECK(fixture::compare_exact(softmax(fixture::make(expected["input"]), 0), expected["output"]) == "");
}

TEST_CASE("pow to -0.5 and -2 computes rsqrt and 1 / (x * x) as ATen does, at the edges too", "[fidelity][hardening]") {
  // pow(-0.0, -0.5) was +inf and pow(-inf, -0.5) 0, where 1 / sqrt(x) gives -inf and nan.
  const Tensor x = fixture::make(case_named("pow_half_gradient_edges")["input"]);
  CHECK(fixture::compare_exact(x.pow(-0.5), output("pow_minus_half_edges")) == "");
  CHECK(fixture::compare_exact(x.pow(-2), output("pow_minus_two_edges")) == "");
}

TEST_CASE("the gradient of x ** 0.5 is -inf at -0.0 and nan at -inf, as PyTorch's", "[fidelity][hardening]") {
  const fixture::json& expected = case_named("pow_half_gradient_edges");
  const Tensor x = fixture::make(expected["input"]).requires_grad_();
  x.pow(0.5).sum().backward();
  CHECK(fixture::compare_exact(x.grad(), expected["grad"]) == "");
}

TEST_CASE("an in-place op on a view whose base came to require grad is refused until its grad_fn is read",
          "[fidelity][hardening]") {
  // The view was made while nothing required grad, so it has no grad_fn; its base then required
  // grad through copy_ into another view. PyTorch's C++ is_leaf() reads the grad_fn recorded so
  // far, so the view counts as a leaf that requires grad; reading grad_fn rebuilds it.
  for (const bool read_grad_fn_first : {false, true}) {
    const fixture::json& expected = case_named(read_grad_fn_first ? "inplace_on_view_of_base_given_grad_after_grad_fn"
                                                                  : "inplace_on_view_of_base_given_grad");
    Tensor base = zeros({4});
    Tensor view = base.narrow(0, 0, 2);
    base.narrow(0, 2, 2).copy_(ones({2}, Options().requires_grad()));
    if (read_grad_fn_first) view.grad_fn();
    if (expected["message"].is_null()) {
      view.div_(full({2}, 2.0));
      CHECK(view.grad_fn()->name() == expected["grad_fn"].get<std::string>());
    } else {
      CHECK_THROWS_WITH(view.div_(full({2}, 2.0)), expected["message"].get<std::string>());
    }
  }
}
