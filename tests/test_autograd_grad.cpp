// autograd::grad and double backward, checked against PyTorch 1.13 (tests/fixtures/
// autograd_debug.json, tools/fixtures/autograd_debug.py): a small tanh MLP's first derivatives, a
// WGAN-GP style gradient penalty differentiated through them, a Hessian-vector product, and
// autograd::grad's error texts.
#include <catch2/catch.hpp>

#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

const json& mlp_fixture() { return fixture::load("autograd_debug.json")["grad_mlp"]; }

struct Mlp {
  Tensor x, w1, b1, w2, b2;
  std::vector<Tensor> all() const { return {x, w1, b1, w2, b2}; }
  Tensor forward() const { return linear(linear(x, w1, b1).tanh(), w2, b2); }
};

Mlp mlp_from_fixture() {
  const json& f = mlp_fixture();
  return {fixture::make(f["x"], true), fixture::make(f["W1"], true), fixture::make(f["b1"], true),
          fixture::make(f["W2"], true), fixture::make(f["b2"], true)};
}

// The WGAN-GP penalty: (|dD/dx| per row - 1)^2, averaged.
Tensor gradient_penalty(const Tensor& gradient_of_x) {
  return ((gradient_of_x * gradient_of_x).sum({1}).sqrt() - 1).pow(2).mean();
}

}  // namespace

TEST_CASE("autograd::grad returns an MLP's first derivatives as PyTorch does", "[autograd-debug][autograd-grad]") {
  const Mlp net = mlp_from_fixture();
  const std::vector<Tensor> first = autograd::grad({net.forward().sum()}, net.all());
  REQUIRE(first.size() == 5);
  for (size_t i = 0; i < first.size(); ++i) {
    INFO("input " << i);
    CHECK(fixture::compare(first[i], mlp_fixture()["first"][i]) == "");
    CHECK_FALSE(first[i].requires_grad());  // without create_graph, plain tensors
  }
}

TEST_CASE("autograd::grad touches no .grad", "[autograd-debug][autograd-grad]") {
  const Mlp net = mlp_from_fixture();
  autograd::grad({net.forward().sum()}, {net.x});
  for (const Tensor& t : net.all()) CHECK_FALSE(t.mutable_grad().defined());
}

TEST_CASE("with create_graph the gradient has a graph of its own", "[autograd-debug][autograd-grad]") {
  const Mlp net = mlp_from_fixture();
  const std::vector<Tensor> first = autograd::grad({net.forward().sum()}, {net.x}, {}, std::nullopt, true);
  CHECK(first[0].requires_grad());
  CHECK(first[0].grad_fn() != nullptr);
}

TEST_CASE("a gradient penalty is differentiated through create_graph as PyTorch does",
          "[autograd-debug][autograd-grad][double-backward]") {
  const Mlp net = mlp_from_fixture();
  const Tensor gx = autograd::grad({net.forward().sum()}, {net.x}, {}, std::nullopt, /*create_graph=*/true)[0];
  const Tensor penalty = gradient_penalty(gx);
  CHECK(fixture::compare(penalty, mlp_fixture()["penalty"]) == "");
  const std::vector<Tensor> second = autograd::grad({penalty}, net.all(), {}, true, false, /*allow_unused=*/true);
  for (size_t i = 0; i < second.size(); ++i) {
    INFO("input " << i);
    const json& expected = mlp_fixture()["second"][i];
    if (expected.is_null()) CHECK_FALSE(second[i].defined());  // b2: the penalty does not depend on it
    else CHECK(fixture::compare(second[i], expected) == "");
  }
}

TEST_CASE("backward through a gradient penalty accumulates PyTorch's second derivatives",
          "[autograd-debug][autograd-grad][double-backward]") {
  const Mlp net = mlp_from_fixture();
  const Tensor gx = autograd::grad({net.forward().sum()}, {net.x}, {}, std::nullopt, true)[0];
  gradient_penalty(gx).backward();
  CHECK(fixture::compare(net.w1.grad(), mlp_fixture()["second"][1]) == "");
  CHECK(fixture::compare(net.w2.grad(), mlp_fixture()["second"][3]) == "");
  CHECK_FALSE(net.b2.mutable_grad().defined());
}

TEST_CASE("a Hessian-vector product through create_graph matches PyTorch", "[autograd-debug][autograd-grad]") {
  const Mlp net = mlp_from_fixture();
  const Tensor v = fixture::make(mlp_fixture()["v"]);
  const Tensor gx = autograd::grad({net.forward().sum()}, {net.x}, {}, std::nullopt, true)[0];
  CHECK(fixture::compare(autograd::grad({(gx * v).sum()}, {net.x})[0], mlp_fixture()["hvp"]) == "");
}

TEST_CASE("autograd::grad's retain_graph defaults to create_graph", "[autograd-debug][autograd-grad]") {
  const Mlp net = mlp_from_fixture();
  const Tensor out = net.forward().sum();
  autograd::grad({out}, {net.x}, {}, std::nullopt, /*create_graph=*/true);
  CHECK_NOTHROW(autograd::grad({out}, {net.x}));  // kept by create_graph
  CHECK_THROWS(autograd::grad({out}, {net.x}));   // freed by the call before
}

TEST_CASE("autograd::grad refuses what PyTorch refuses, with its texts", "[autograd-debug][autograd-grad][errors]") {
  auto message = [](const std::string& name) {
    for (const json& c : fixture::load("autograd_debug.json")["grad_errors"])
      if (c["name"] == name) return c["message"].get<std::string>();
    FAIL("no grad_errors case " << name);
    return std::string();
  };
  const Tensor x = ones({3}, Options(kFloat32).requires_grad()), w = ones({3}, Options(kFloat32).requires_grad());
  const Tensor c = ones({3});
  const Tensor y = x * 2;
  CHECK_THROWS_WITH(autograd::grad({y.sum()}, {x, w}, {}, true), message("unused_input"));
  CHECK(autograd::grad({y.sum()}, {x, w}, {}, true, false, /*allow_unused=*/true)[1].defined() == false);
  CHECK_THROWS_WITH(autograd::grad({y.sum()}, {x, c}, {}, true), message("input_not_requiring_grad"));
  CHECK_THROWS_WITH(autograd::grad({y}, {x}, {}, true), message("implicit_grad_of_non_scalar"));
  CHECK_THROWS_WITH(autograd::grad({y}, {x}, {ones({2})}, true), message("grad_output_shape"));
  CHECK_THROWS_WITH(autograd::grad({y, y}, {x}, {ones({3})}, true), message("grad_outputs_count"));
  CHECK_THROWS_WITH(autograd::grad({c.sum()}, {x}), message("output_not_requiring_grad"));
  CHECK_THROWS_WITH(autograd::grad({y.sum()}, {}), message("no_inputs"));
  const Tensor z = (x * x).sum();
  autograd::grad({z}, {x});
  CHECK_THROWS_WITH(autograd::grad({z}, {x}), message("second_call_without_retain_graph"));
}
