// The public gradcheck and gradgradcheck (engine/debug/gradcheck.h): they pass what is right,
// report what is wrong with PyTorch 1.13's texts (tests/fixtures/autograd_debug.json), and every
// node kind's formula is differentiated twice correctly (double backward).
#include <catch2/catch.hpp>

#include <set>

#include "captured_warnings.h"
#include "fixture.h"
#include "gradcheck_cases.h"

using namespace ember;
using V = std::vector<Tensor>;

namespace {

const fixture::json& texts() { return fixture::load("autograd_debug.json")["gradcheck"]; }

Tensor float64_leaf(const std::vector<double>& values) {
  return from_vector(values, {static_cast<int64_t>(values.size())}, kFloat64).requires_grad_();
}

// A function whose gradient autograd gets wrong: x * x.detach() has derivative 2x, autograd says x.
Tensor half_detached_square(const V& v) { return v[0] * v[0].detach(); }

// Right first derivative (exp(x)), wrong second: the derivative is built from detached values.
Tensor detached_exp(const V& v) {
  const Tensor frozen = v[0].detach().exp();
  return frozen * (v[0] - v[0].detach()) + frozen;
}

}  // namespace

TEST_CASE("gradcheck passes a right gradient with PyTorch's default tolerances", "[autograd-debug][gradcheck]") {
  CHECK(autograd::gradcheck([](const V& v) { return (v[0] * v[1]).tanh(); },
                            {float64_leaf({0.1, -0.4, 0.7}), float64_leaf({1.5, 0.2, -0.3})}));
}

TEST_CASE("gradcheck perturbs a non-contiguous input element by element", "[autograd-debug][gradcheck]") {
  const Tensor transposed =
      from_vector<double>({0.1, -0.2, 0.3, 0.4, -0.5, 0.6}, {2, 3}, kFloat64).t().requires_grad_();
  REQUIRE_FALSE(transposed.is_contiguous());
  CHECK(autograd::gradcheck([](const V& v) { return v[0].exp() * v[0].select(1, 0).unsqueeze(1); }, {transposed},
                            kTightGradcheck));
}

TEST_CASE("gradcheck reports a wrong gradient as PyTorch's Jacobian mismatch", "[autograd-debug][gradcheck][errors]") {
  CHECK_THROWS_WITH(autograd::gradcheck(half_detached_square, {float64_leaf({1, 2})}),
                    texts()["mismatch"].get<std::string>());
}

TEST_CASE("gradcheck returns false instead of raising when asked to", "[autograd-debug][gradcheck]") {
  autograd::GradcheckOptions options;
  options.raise_exception = false;
  CHECK_FALSE(autograd::gradcheck(half_detached_square, {float64_leaf({1, 2})}, options));
}

TEST_CASE("gradcheck needs an input that requires grad", "[autograd-debug][gradcheck][errors]") {
  CHECK_THROWS_WITH(autograd::gradcheck([](const V& v) { return v[0] * 2; }, {from_vector<double>({1, 2}, {2})}),
                    texts()["no_input_requires_grad"].get<std::string>());
}

TEST_CASE("gradcheck warns about an input that is not float64", "[autograd-debug][gradcheck]") {
  CapturedWarnings warnings;
  autograd::GradcheckOptions loose;
  loose.eps = 1e-3;
  loose.atol = 1e-2;
  CHECK(
      autograd::gradcheck([](const V& v) { return v[0] * 2; }, {ones({2}, Options(kFloat32).requires_grad())}, loose));
  REQUIRE(warnings.texts.size() == 1);
  CHECK(warnings.texts[0] == texts()["not_double_warning"].get<std::string>());
}

TEST_CASE("gradgradcheck reports a wrong second derivative as PyTorch does", "[autograd-debug][gradcheck][errors]") {
  CHECK_THROWS_WITH(autograd::gradgradcheck(detached_exp, {float64_leaf({0.5, 2})}, {float64_leaf({1, -0.5})}),
                    texts()["second_derivative_mismatch"].get<std::string>());
}

TEST_CASE("every gradcheck program passes gradgradcheck: each node kind differentiates twice",
          "[autograd-debug][gradcheck][double-backward]") {
  std::set<std::string> checked;
  for (const GradcheckCase& c : gradcheck_cases()) {
    INFO("gradcheck case: " << c.name);
    const V inputs = c.inputs();
    // PyTorch's tolerances: differences of analytical first derivatives lose more digits than
    // those of values (the programs' third derivatives are large where log(x^2 + 1) is small).
    autograd::GradcheckOptions options;
    options.eps = c.eps;
    CHECK(autograd::gradgradcheck(c.f, inputs, {}, options));
    collect_node_names(c.f(inputs), checked);
  }
  // PyTorch 1.13 can differentiate every one of ember's node kinds twice, so each must be in a
  // program gradgradcheck passed; but NotImplemented, which PyTorch cannot differentiate once
  // (test_views_more.cpp asserts its text).
  checked.insert("NotImplemented");
  for (const std::string& kind : autograd::all_node_names()) {
    INFO("node kind: " << kind);
    CHECK(checked.count(kind) == 1);
  }
}
