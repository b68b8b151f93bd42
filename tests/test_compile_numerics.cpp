// ember::compile's numerics: each op family it fuses against eager within a stated bound, the
// prelude's exp and sigmoid at the ends of float's range against exp in double, and random fused
// chains, forward and backward, against eager (a differential test).
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ember.h"
#include "ulp_distance.h"

using namespace ember;
using ulp_distance::max_ulps;
using ulp_distance::scaled_error;

// The bounds, op family by op family, against eager on the same inputs (ops on [33, 70]): the
// arithmetic, sqrt and the special powers are the same IEEE operations as eager's, so exact; exp and
// sigmoid use the prelude's Cephes exp, eager Eigen's (each a few ULPs from the true value); tanh,
// log and other powers are libm's against eager's own; the reductions add in another order,
// bounded in ULPs of the result's scale.
TEST_CASE("each op family the compiler fuses agrees with eager within its stated bound", "[compile]") {
  manual_seed(1);
  const Tensor a = randn({33, 70}) * 3, b = randn({33, 70}), column = randn({70}), row = randn({33, 1});
  struct Family {
    const char* name;
    std::function<Tensor(const Tensor&)> op;
    double bound;  // in ULPs; scaled ULPs for the reductions
    bool scaled;
  };
  const std::vector<Family> families = {
      {"add, sub and alpha", [&](const Tensor& x) { return add(x - b, column, 2.0); }, 0, false},
      {"mul and div", [&](const Tensor& x) { return x * row / (b + 5.0); }, 0, false},
      {"neg, abs, relu, reciprocal", [&](const Tensor& x) { return relu(-x) + abs(x) + reciprocal(x); }, 0, false},
      {"sqrt and pow 2, 0.5", [&](const Tensor& x) { return sqrt(abs(x)) + x.pow(2) + abs(x).pow(0.5); }, 0, false},
      {"exp", [&](const Tensor& x) { return exp(x); }, 8, false},
      {"sigmoid", [&](const Tensor& x) { return sigmoid(x); }, 8, false},
      {"tanh", [&](const Tensor& x) { return tanh(x); }, 4, false},
      {"log", [&](const Tensor& x) { return log(abs(x) + 0.1); }, 2, false},
      {"pow -0.5, 3, -1, -2",
       [&](const Tensor& x) { return (abs(x) + 0.1).pow(-0.5) + x.pow(3) + x.pow(-1) + x.pow(-2); }, 0, false},
      {"pow 1.7 (libm's powf against ATen's Sleef pow)", [&](const Tensor& x) { return abs(x).pow(1.7); }, 2, false},
      {"row sum and mean", [&](const Tensor& x) { return x.sum({-1}, true) + x.mean({1}, true) * x; }, 64, true},
      {"column sum and mean", [&](const Tensor& x) { return x.sum({0}) + (x * 2).mean({0}); }, 64, true},
  };
  for (const Family& family : families) {
    INFO(family.name);
    CompiledFunction compiled([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{family.op(in[0])}; });
    compiled({a});
    const Tensor got = compiled({a})[0], expected = family.op(a);
    CHECK(compiled.stats().kernels == 1);
    if (family.scaled) CHECK(scaled_error(got, expected) <= family.bound);
    else CHECK(max_ulps(got, expected) <= family.bound);
  }
}

// The prelude's exp at the ends of float's range, where its clamps act, against exp in double:
// 0 and subnormals below, inf above, NaN kept. Each row shifts the 24 values by 8 columns, so that
// each goes through the vector loop's first 16 columns and through its remainder.
TEST_CASE("compiled exp and sigmoid give 0, subnormals, inf and NaN where exp in double does", "[compile]") {
  const std::vector<float> values = {-INFINITY, -1e30f, -200, -104.5f, -103.9f, -100,  -88,      -87.3f,
                                     -20,       0,      1,    20,      88,      88.7f, 88.8f,    89.5f,
                                     150,       176,    177,  200,     1e30f,   1e38f, INFINITY, NAN};
  const int64_t columns = static_cast<int64_t>(values.size());
  std::vector<float> rows;
  for (int64_t row = 0; row < 3; ++row)
    for (int64_t c = 0; c < columns; ++c) rows.push_back(values[(c + 8 * row) % columns]);
  const Tensor x = from_vector(rows, {3, columns});
  auto exact = [&](auto function) {
    std::vector<float> out;
    for (float v : rows) out.push_back(static_cast<float>(function(static_cast<double>(v))));
    return from_vector(out, {3, columns});
  };
  CompiledFunction compiled_exp([](const std::vector<Tensor>& in) { return std::vector<Tensor>{exp(in[0])}; });
  CompiledFunction compiled_sigmoid([](const std::vector<Tensor>& in) { return std::vector<Tensor>{sigmoid(in[0])}; });
  compiled_exp({x});  // the capture and the build
  compiled_sigmoid({x});
  CHECK(max_ulps(compiled_exp({x})[0], exact([](double v) { return std::exp(v); })) <= 1);
  // sigmoid is 1 / (1 + exp(-x)) in float, as PyTorch's is: below -88.7 exp(-x) is inf and sigmoid 0.
  CHECK(max_ulps(compiled_sigmoid({x})[0],
                 exact([](double v) { return 1.0f / (1.0f + static_cast<float>(std::exp(-v))); })) <= 1);
  CHECK(compiled_exp.stats().kernels == 1);
  CHECK(compiled_sigmoid.stats().kernels == 1);
}

// Random chains of the fused families on random shapes, forward and backward: every result within
// 64 ULPs of its scale (the bound a chain of a few reductions keeps; the worst seen is printed).
TEST_CASE("random chains of fused ops give eager's values and gradients (a differential test)", "[compile]") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t rows = 1 + random() % 40, columns = 2 + random() % 90;
    std::vector<int> program;
    for (int i = 0; i < 6; ++i) program.push_back(static_cast<int>(random() % 9));
    auto chain = [program](const std::vector<Tensor>& in) {
      Tensor x = in[0];
      const Tensor& column = in[1];
      for (int step : program) {
        switch (step) {
          case 0: x = x * sigmoid(x); break;
          case 1: x = x + column; break;
          case 2: x = x - x.mean({-1}, true); break;
          case 3: x = tanh(x) * 2.0; break;
          case 4: x = x / (x.pow(2).sum({-1}, true) + 1.0).pow(0.5); break;
          case 5: x = relu(x) - 0.5 * x; break;
          case 6: x = exp(-abs(x)) + x; break;
          case 7: x = log(x * x + 1.0); break;
          default: x = layer_norm(x, {x.size(-1)}, column, column * 0.5, 1e-5); break;
        }
      }
      return std::vector<Tensor>{x};
    };
    manual_seed(trial);
    const Tensor x = randn({rows, columns}).requires_grad_(true), column = randn({columns}).requires_grad_(true);
    CompiledFunction compiled(chain, {"x", "column"});
    compiled({x, column});
    const Tensor got = compiled({x, column})[0], expected = chain({x, column})[0];
    INFO("trial " << trial << ": " << rows << " x " << columns);
    CHECK(scaled_error(got, expected) <= 64);
    const Tensor g = randn({rows, columns});
    const auto eager_grads = autograd::grad({expected}, {x, column}, {g}, std::nullopt, false, /*allow_unused=*/true);
    const auto compiled_grads = autograd::grad({got}, {x, column}, {g}, std::nullopt, false, /*allow_unused=*/true);
    for (size_t i = 0; i < 2; ++i) {
      REQUIRE(compiled_grads[i].defined() == eager_grads[i].defined());
      if (eager_grads[i].defined()) CHECK(scaled_error(compiled_grads[i], eager_grads[i]) <= 64);
    }
  }
}
