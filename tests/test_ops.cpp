// Every op against PyTorch: tests/fixtures/ops.json holds inputs (contiguous, transposed, sliced,
// expanded, permuted, broadcast), PyTorch's outputs and PyTorch's gradients for a fixed upstream
// gradient. Each case is built here with ember's own view ops, run, and compared; a case that
// fails or throws is reported and the loop goes on, so one run shows every mismatch.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "fixture.h"
#include "op_runner.h"

using namespace ember;
using fixture::json;

namespace {

// How many cases the fixture script wrote: "count", and "with_grads" for those with a floating
// output and a floating input. Each test requires it ran that many.
size_t written(const std::string& count) { return fixture::load("ops.json")[count].get<size_t>(); }

const json& cases() {
  const json& all = fixture::load("ops.json")["cases"];
  REQUIRE(all.size() == written("count"));
  return all;
}

// A bfloat16/float16 result of an element-wise op or a conversion is PyTorch's float32 value
// rounded once, so ember's must be the same bits. Reductions and products accumulate in an order
// of their own, and PyTorch's 16-bit add/sub kernels round alpha * b before adding: those keep
// the dtype's tolerance.
std::string compare_output(const json& c, const Tensor& actual, const json& expected) {
  static const std::set<std::string> accumulating = {"sum",         "mean",       "mm",       "addmm",
                                                     "bmm",         "matmul",     "linear",   "softmax",
                                                     "log_softmax", "layer_norm", "mse_loss", "cross_entropy"};
  const std::string dtype = expected["dtype"];
  const bool rounded_once =
      (dtype == "bfloat16" || dtype == "float16") && !accumulating.count(c["op"]) && !c["args"].contains("alpha");
  return rounded_once ? fixture::compare_exact(actual, expected) : fixture::compare(actual, expected);
}

// Known divergences, each with its cause. ember's backward formulas are compositions of ops that
// each round to the 16-bit dtype, in another order than PyTorch's backward kernels
// (sigmoid_backward, tanh_backward, div's -grad * a / b^2), so these gradients are 2 to 4 ulps
// from PyTorch's. The test checks they still differ (fix one: take it off the list) and stay
// within 4 ulps of the dtype.
const std::set<std::string> kGradientsOffByUlps = {"sigmoid_lowp_bf16", "tanh_lowp_bf16", "div_lowp_bf16",
                                                   "div_lowp_f16"};

// Whether every element of a bfloat16/float16 tensor is within `ulps` units in the last place
// (of the expected value's binade) of PyTorch's.
bool within_ulps(const Tensor& actual, const json& expected, int ulps) {
  const int mantissa_bits = actual.dtype() == kBFloat16 ? 7 : 10;
  const std::vector<double> got = actual.to_vector<double>();
  const std::vector<double> want = fixture::make(expected).to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) {
    const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(want[i]), 0x1p-14)) - mantissa_bits);
    if (std::fabs(got[i] - want[i]) > ulps * ulp) return false;
  }
  return got.size() == want.size();
}

}  // namespace

TEST_CASE("every op's output matches PyTorch, contiguous and strided", "[ops]") {
  size_t checked = 0;
  for (const json& c : cases()) {
    const std::string op = c["op"];
    INFO("case " << c["name"].get<std::string>());
    try {
      std::vector<Tensor> inputs;
      for (const json& spec : c["inputs"]) inputs.push_back(fixture::make(spec));
      const std::vector<Tensor> outputs = fixture::run_op(op, inputs, c["args"]);
      const bool several = c["output"].is_array();
      CHECK(outputs.size() == (several ? c["output"].size() : 1));
      for (size_t i = 0; i < outputs.size(); ++i)
        CHECK(compare_output(c, outputs[i], several ? c["output"][i] : c["output"]) == "");
      ++checked;
    } catch (const std::exception& e) {
      FAIL_CHECK("threw: " << e.what());
    }
  }
  CHECK(checked == written("count"));
}

TEST_CASE("every differentiable op's gradients match PyTorch, through views to the base", "[ops][autograd]") {
  size_t checked = 0;
  for (const json& c : cases()) {
    if (!c.contains("grads")) continue;
    INFO("case " << c["name"].get<std::string>());
    try {
      std::vector<Tensor> inputs, bases;
      for (const json& spec : c["inputs"]) {
        Tensor base;
        inputs.push_back(fixture::make(spec, /*requires_grad=*/true, &base));
        bases.push_back(base);
      }
      Tensor out = fixture::run_op(c["op"], inputs, c["args"])[0];
      CHECK(out.requires_grad());
      if (!out.requires_grad()) continue;
      out.backward(fixture::make(c["grad_output"]));
      const bool off_by_ulps = kGradientsOffByUlps.count(c["name"]) == 1;
      bool all_match = true;
      for (size_t i = 0; i < bases.size(); ++i) {
        const json& expected = c["grads"][i];
        if (expected.is_null()) continue;
        INFO("gradient of input " << i);
        CHECK(bases[i].grad().defined());
        if (!bases[i].grad().defined()) continue;
        const std::string difference = fixture::compare(bases[i].grad(), expected);
        all_match = all_match && difference.empty();
        if (!off_by_ulps) CHECK(difference == "");
        else CHECK(within_ulps(bases[i].grad(), expected, 4));
      }
      if (off_by_ulps) CHECK_FALSE(all_match);
      ++checked;
    } catch (const std::exception& e) {
      FAIL_CHECK("threw: " << e.what());
    }
  }
  CHECK(checked == written("with_grads"));
}

TEST_CASE("relu's gradient in one pass equals its definition: zero where the input is at or below the threshold",
          "[ops]") {
  // threshold_backward runs one fused kernel for same-sized float tensors; a NaN input is not <= 0,
  // so its gradient passes, as in PyTorch.
  manual_seed(0);
  Tensor x = randn({4, 300});
  x.view({-1}).narrow(0, 0, 3).copy_(tensor({0.0, std::nan(""), -0.0}));
  const Tensor g = randn({4, 300});
  const Tensor zero = zeros({});
  CHECK(equal(threshold_backward(g, x, 0), where(le(x, 0), zero, g)));
  CHECK(equal(threshold_backward(g, x, 0.5), where(le(x, 0.5), zero, g)));
  const Tensor x64 = x.to(kFloat64), g64 = g.to(kFloat64);
  CHECK(equal(threshold_backward(g64, x64, 0), where(le(x64, 0), zeros({}, kFloat64), g64)));
}

TEST_CASE("ops with a number or a broadcast scalar over long contiguous runs compute every element", "[ops]") {
  // Runs longer than the 256-element chunks the strided loop reads a repeated value in, with a
  // length that is not a multiple of them, checked element by element against plain C++.
  manual_seed(0);
  const Tensor a = randn({3, 1000});
  const Tensor scalar = full({}, 0.25);
  const std::vector<float> x = a.to_vector<float>();
  const std::vector<float> scaled = (a * 2.5f).to_vector<float>();
  const std::vector<float> shifted = (a + scalar).to_vector<float>();
  const std::vector<float> relu_grad = threshold_backward(a, a, 0).to_vector<float>();
  const std::vector<float> kept = where(gt(a, 0.5), a, scalar).to_vector<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("element " << i);
    REQUIRE(scaled[i] == x[i] * 2.5f);
    REQUIRE(shifted[i] == x[i] + 0.25f);
    REQUIRE(relu_grad[i] == (x[i] <= 0 ? 0.0f : x[i]));
    REQUIRE(kept[i] == (x[i] > 0.5f ? x[i] : 0.25f));
  }
}

TEST_CASE("add and sub with an alpha round a + alpha * b once, as PyTorch's kernels do", "[ops]") {
  // PyTorch's CPU kernels fuse the multiply and the add (Vectorized's fmadd), so an optimizer's
  // p.add_(g, -lr) lands on PyTorch's bits only if ember's do too. 1003 elements: whole vectors and
  // a tail; float32 and float64, each against std::fma.
  manual_seed(3);
  const Tensor a = randn({1003}), b = randn({1003});
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  const std::vector<float> sum = add(a, b, 0.3).to_vector<float>(), difference = sub(a, b, 0.3).to_vector<float>();
  const std::vector<double> sum64 = add(a.to(kFloat64), b.to(kFloat64), 0.3).to_vector<double>();
  int rounded_differently = 0;  // how often two roundings would have differed (the test's power)
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("element " << i);
    REQUIRE(sum[i] == std::fma(0.3f, y[i], x[i]));
    REQUIRE(difference[i] == std::fma(-0.3f, y[i], x[i]));
    REQUIRE(sum64[i] == std::fma(0.3, double(y[i]), double(x[i])));
    const float product = 0.3f * y[i];
    rounded_differently += sum[i] != x[i] + product;
  }
  CHECK(rounded_differently > 0);
}
