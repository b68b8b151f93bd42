// maximum, minimum and clamp beyond what the op fixtures compare (tests/fixtures/ops.json holds
// their values and gradients): the nodes they record, their method forms, and long tensors, where
// the kernels' vectorised loops run.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember.h"

using namespace ember;

TEST_CASE("clamp, clamp_min, clamp_max, maximum and minimum record PyTorch's nodes", "[ops][autograd]") {
  Tensor x = randn({3}, Options().requires_grad()), y = randn({3}, Options().requires_grad());
  CHECK(clamp(x, -0.5, 0.5).grad_fn()->name() == "ClampBackward1");
  CHECK(clamp(x, -0.5).grad_fn()->name() == "ClampBackward1");
  CHECK(clamp(x, std::nullopt, 0.5).grad_fn()->name() == "ClampBackward1");
  CHECK(clamp_min(x, -0.5).grad_fn()->name() == "ClampMinBackward0");
  CHECK(clamp_max(x, 0.5).grad_fn()->name() == "ClampMaxBackward0");
  CHECK(maximum(x, y).grad_fn()->name() == "MaximumBackward0");
  CHECK(minimum(x, y).grad_fn()->name() == "MinimumBackward0");
}

TEST_CASE("the method forms are the functions: t.clamp(), t.maximum(), t.abs(), t.sign()", "[ops]") {
  manual_seed(1);
  const Tensor t = randn({4, 5}), u = randn({5});
  CHECK(equal(t.clamp(-0.3, 0.4), clamp(t, -0.3, 0.4)));
  CHECK(equal(t.clamp(std::nullopt, 0.1), clamp_max(t, 0.1)));
  CHECK(equal(t.clamp_min(0.2), clamp(t, 0.2)));
  CHECK(equal(t.clamp_max(-0.2), minimum(t, full({}, -0.2))));
  CHECK(equal(t.maximum(u), maximum(t, u)));
  CHECK(equal(t.minimum(u), minimum(t, u)));
  CHECK(equal(t.abs(), abs(t)));
  CHECK(equal(t.sign(), sign(t)));
}

TEST_CASE("maximum, minimum and clamp of long tensors keep NaN and bound every element", "[ops]") {
  // 1003 elements: whole vectors and a tail, each element checked against its definition.
  manual_seed(2);
  Tensor a = randn({1003}), b = randn({1003});
  a.narrow(0, 0, 2).copy_(tensor({std::nan(""), 1.0}));
  b.narrow(0, 0, 2).copy_(tensor({0.0, std::nan("")}));
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  const std::vector<float> larger = maximum(a, b).to_vector<float>(), smaller = minimum(a, b).to_vector<float>();
  const std::vector<float> clamped = clamp(a, -0.5, 0.5).to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(x[i]) || std::isnan(y[i])) {
      REQUIRE(std::isnan(larger[i]));
      REQUIRE(std::isnan(smaller[i]));
    } else {
      REQUIRE(larger[i] == std::max(x[i], y[i]));
      REQUIRE(smaller[i] == std::min(x[i], y[i]));
    }
    if (std::isnan(x[i])) REQUIRE(std::isnan(clamped[i]));
    else REQUIRE(clamped[i] == std::min(std::max(x[i], -0.5f), 0.5f));
  }
}
