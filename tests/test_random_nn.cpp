// Randomness through nn, bit for bit as PyTorch's CPU build makes it: nn::Linear's initialisation,
// the chapter's sequence of draws, a seeded 512-wide MLP end to end, and dropout, compared with
// tests/fixtures/nn_random.json (written by tools/make_fixtures.py from PyTorch 1.13, layouts in
// tools/fixtures/random.py). The generator, the sampling ops and the samplers' rules are in
// test_random_generator.cpp, test_random_sampling.cpp and test_random_rules.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "ember.h"
#include "fixture.h"
#include "random_bits.h"

using namespace ember;
using namespace random_bits;
using fixture::json;

namespace {

Tensor parameter(const nn::Module& module, const std::string& name) {
  for (const auto& [parameter_name, value] : module.named_parameters())
    if (parameter_name == name) return value;
  throw std::runtime_error("no parameter " + name);
}

// Compares a tensor with a summary from nn_random.json at rtol 1e-5 and atol 1e-5 * max|x|.
// Sums are compared with the tolerance the element-wise one implies for them:
// rtol * sum|x| + n * atol.
void check_summary(const Tensor& t, const json& summary) {
  REQUIRE(t.sizes() == dims_of(summary["shape"]));
  const double rtol = 1e-5, atol = 1e-5 * summary["max_abs"].get<double>();
  auto close = [&](double actual, double expected, double tolerance) {
    return std::fabs(actual - expected) <= tolerance;
  };
  const std::vector<double> values = t.to_vector<double>();
  double max_abs = 0;
  for (double v : values) max_abs = std::max(max_abs, std::fabs(v));
  CHECK(close(max_abs, summary["max_abs"], atol + rtol * summary["max_abs"].get<double>()));
  // Every element, through two float64 digests. ember's and PyTorch's float32 products differ by
  // a few ulps per element in both directions, which moves a digest by about 1e-8 of sum|x|;
  // 1e-6 of it leaves room for that and still notices one element off by a tenth of a typical one.
  double abs_sum = 0, weighted_sum = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    abs_sum += std::fabs(values[k]);
    weighted_sum += values[k] * std::cos(0.1 * static_cast<double>(k));
  }
  const double digest_tolerance = 1e-6 * abs_sum;
  CHECK(close(abs_sum, summary["abs_sum"], digest_tolerance));
  CHECK(close(weighted_sum, summary["weighted_sum"], digest_tolerance));
  if (t.dim() == 1) {
    REQUIRE(summary["values"].size() == values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      INFO("element " << i);
      const double expected = summary["values"][i];
      CHECK(close(values[i], expected, atol + rtol * std::fabs(expected)));
    }
    return;
  }
  const int64_t rows = t.size(0), columns = t.size(1);
  REQUIRE(summary["samples"].size() == 50);
  REQUIRE(summary["row_sums"].size() == static_cast<size_t>(rows));
  REQUIRE(summary["column_sums"].size() == static_cast<size_t>(columns));
  for (const json& sample : summary["samples"]) {
    const int64_t i = sample[0][0], j = sample[0][1];
    INFO("element [" << i << ", " << j << "]");
    const double expected = sample[1];
    CHECK(close(values[i * columns + j], expected, atol + rtol * std::fabs(expected)));
  }
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0, sum_abs = 0;
    for (int64_t j = 0; j < columns; ++j) sum += values[i * columns + j], sum_abs += std::fabs(values[i * columns + j]);
    INFO("row " << i);
    CHECK(close(sum, summary["row_sums"][i], rtol * sum_abs + columns * atol));
  }
  for (int64_t j = 0; j < columns; ++j) {
    double sum = 0, sum_abs = 0;
    for (int64_t i = 0; i < rows; ++i) sum += values[i * columns + j], sum_abs += std::fabs(values[i * columns + j]);
    INFO("column " << j);
    CHECK(close(sum, summary["column_sums"][j], rtol * sum_abs + rows * atol));
  }
}

}  // namespace

// ---- acceptance 2: nn::Linear's initialisation ----

TEST_CASE("after manual_seed(0), nn::Linear(16, 16) has PyTorch's weight and bias bits", "[random]") {
  const json& expected = fixture::load("nn_random.json")["linear_16_16"];
  manual_seed(0);
  nn::Linear layer(16, 16);
  CHECK(bit_difference(layer->weight(), expected["weight"]) == "");
  CHECK(bit_difference(layer->bias(), expected["bias"]) == "");
  const json& small = fixture::load("nn_random.json")["linear_4_3_seed_42"];
  manual_seed(42);
  nn::Linear other(4, 3);
  CHECK(bit_difference(other->weight(), small["weight"]) == "");
  CHECK(bit_difference(other->bias(), small["bias"]) == "");
}

TEST_CASE("after manual_seed(0), nn::Linear(512, 512) hashes to PyTorch's weight and bias", "[random]") {
  const json& expected = fixture::load("nn_random.json")["linear_512_512"];
  manual_seed(0);
  nn::Linear layer(512, 512);
  CHECK(digest_difference(layer->weight(), expected["weight"]) == "");
  CHECK(digest_difference(layer->bias(), expected["bias"]) == "");
  CHECK(fnv1a64(layer->bias(), fnv1a64(layer->weight())) == expected["fnv1a64_weight_then_bias"].get<uint64_t>());
}

TEST_CASE("Linear's parameters have version 1 and require grad after construction", "[random]") {
  nn::Linear layer(8, 4);
  CHECK(layer->weight()._version() == 1);
  CHECK(layer->bias()._version() == 1);
  CHECK(layer->weight().is_leaf());
  CHECK(layer->weight().requires_grad());
  const double bound = 1 / std::sqrt(8.0);
  for (float w : layer->weight().to_vector<float>()) CHECK(std::fabs(w) <= bound);
}

// ---- acceptance 4: the chapter's sequence ----

TEST_CASE("The chapter's sequence keeps ember's generator in step with PyTorch's: dropouts and big's weights",
          "[random]") {
  const json& expected = fixture::load("nn_random.json")["chapter"];
  manual_seed(0);
  const Tensor a = randn({4, 8});
  const Tensor b = randn({16, 2});  // the failing matmul's operands are drawn before the Linear
  nn::Linear model(16, 16);
  const Tensor x = randn({8, 16});
  nn::Sequential net{nn::Linear(4, 4), nn::Dropout(0.5)};
  const Tensor z = randn({2, 4});
  net->train();
  const GeneratorState before_dropout = default_generator().get_state();
  const Tensor first = net(z);
  const Tensor second = net(z);
  const GeneratorState after_dropout = default_generator().get_state();
  // Braces, not parentheses: a braced list constructs the layers left to right, as Python does;
  // in a parenthesised call the order is unspecified (GCC builds the last layer first).
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  const Tensor xb = randn({256, 512});

  CHECK(bit_difference(a, expected["a"]) == "");
  CHECK(bit_difference(b, expected["b"]) == "");
  CHECK(bit_difference(model->weight(), expected["model_weight"]) == "");
  CHECK(bit_difference(model->bias(), expected["model_bias"]) == "");
  CHECK(bit_difference(x, expected["x"]) == "");
  CHECK(bit_difference(parameter(*net, "0.weight"), expected["net_weight"]) == "");
  CHECK(bit_difference(parameter(*net, "0.bias"), expected["net_bias"]) == "");
  CHECK(bit_difference(z, expected["z"]) == "");
  CHECK(first.grad_fn()->name() == "MulBackward0");
  CHECK(digest_difference(parameter(*big, "0.weight"), expected["big_0_weight"]) == "");
  CHECK(digest_difference(parameter(*big, "0.bias"), expected["big_0_bias"]) == "");
  CHECK(digest_difference(parameter(*big, "2.weight"), expected["big_2_weight"]) == "");
  CHECK(digest_difference(parameter(*big, "2.bias"), expected["big_2_bias"]) == "");
  CHECK(digest_difference(xb, expected["xb"]) == "");

  // The dropouts themselves, bit for bit: the same elements dropped, the rest scaled by 2, from
  // a Linear(4, 4) output that equals PyTorch's (tiny products are summed in PyTorch's order).
  CHECK(bit_difference(first, expected["dropout_first"]) == "");
  CHECK(bit_difference(second, expected["dropout_second"]) == "");
  CHECK(bit_difference(net[0]->forward(z), expected["net_linear"]) == "");
  // Replayed from the same generator position, dropout draws exactly as many numbers as PyTorch.
  default_generator().set_state(before_dropout);
  dropout(z, 0.5, true);
  dropout(z, 0.5, true);
  CHECK(default_generator().get_state() == after_dropout);
}

// ---- acceptance 3: end to end ----

TEST_CASE("Seeded 512-wide MLP: output and gradients of out.sum() match PyTorch's", "[random]") {
  const json& expected = fixture::load("nn_random.json")["end_to_end"];
  manual_seed(0);
  // Braces, not parentheses: a braced list constructs the layers left to right, as Python does;
  // in a parenthesised call the order is unspecified (GCC builds the last layer first).
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  const Tensor xb = randn({256, 512});
  const Tensor out = big(xb);
  out.sum().backward();
  SECTION("output") { check_summary(out, expected["out"]); }
  SECTION("first layer's gradients") {
    check_summary(parameter(*big, "0.weight").grad(), expected["big_0_weight_grad"]);
    check_summary(parameter(*big, "0.bias").grad(), expected["big_0_bias_grad"]);
  }
  SECTION("second layer's gradients") {
    check_summary(parameter(*big, "2.weight").grad(), expected["big_2_weight_grad"]);
    check_summary(parameter(*big, "2.bias").grad(), expected["big_2_bias_grad"]);
  }
}

// ---- dropout ----

TEST_CASE("dropout in training zeroes elements and scales the kept ones by 1/(1-p)", "[random]") {
  manual_seed(1);
  const Tensor input = ones({1000}, Options().requires_grad());
  const Tensor output = dropout(input, 0.25, true);
  int kept = 0;
  for (float v : output.to_vector<float>()) {
    CHECK((v == 0.0f || v == static_cast<float>(1 / 0.75)));
    kept += v != 0;
  }
  CHECK(kept > 650);
  CHECK(kept < 850);
  CHECK(output.grad_fn()->name() == "MulBackward0");
}

TEST_CASE("dropout is the identity in eval mode, for p = 0 and for empty input", "[random]") {
  const Tensor input = randn({4});
  CHECK(dropout(input, 0.5, false).is_same(input));
  CHECK(dropout(input, 0.0, true).is_same(input));
  const Tensor nothing = empty({0});
  CHECK(dropout(nothing, 0.5, true).is_same(nothing));
}

TEST_CASE("dropout with p = 1 multiplies by zero, drawing nothing", "[random]") {
  manual_seed(2);
  const GeneratorState before = default_generator().get_state();
  const Tensor input = ones({3}, Options().requires_grad());
  const Tensor output = dropout(input, 1.0, true);
  CHECK(output.to_vector<float>() == std::vector<float>{0, 0, 0});
  CHECK(output.grad_fn()->name() == "MulBackward0");
  CHECK(default_generator().get_state() == before);
}

// ---- errors: PyTorch's messages ----

TEST_CASE("dropout rejects p outside [0, 1] and dtypes PyTorch cannot drop with PyTorch's messages", "[random]") {
  const Tensor input = ones({3});
  CHECK_THROWS_WITH(dropout(input, 1.5, true), torch_message("dropout_p_above_one"));
  CHECK_THROWS_WITH(dropout(input, -0.5, true), torch_message("dropout_p_negative"));
  CHECK_THROWS_WITH(dropout(ones({3}, kInt64), 0.5, true), torch_message("dropout_int64"));
  CHECK_THROWS_WITH(dropout(ones({3}, kFloat16), 0.5, true), torch_message("dropout_float16"));
}

TEST_CASE("kaiming_uniform_ needs at least two dimensions, as PyTorch says", "[random]") {
  Tensor t = empty({3});
  CHECK_THROWS_WITH(nn::init::kaiming_uniform_(t, std::sqrt(5.0)), torch_message("kaiming_uniform_1d"));
}
