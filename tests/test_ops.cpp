// Every op against PyTorch: tests/fixtures/ops.json holds inputs (contiguous, transposed, sliced,
// expanded, permuted, broadcast), PyTorch's outputs and PyTorch's gradients for a fixed upstream
// gradient. Each case is built here with ember's own view ops, run, and compared.
#include <catch2/catch.hpp>

#include <cmath>

#include "fixture.h"
#include "op_runner.h"

using namespace ember;
using fixture::json;

namespace {

// Largest |value| of a spec's data: gradients that are sums with cancellation are compared
// with an absolute tolerance scaled by the tensor's magnitude (a wider atol only where PyTorch's own value is large).
double magnitude(const json& spec) {
  double m = 1.0;
  for (const json& v : spec["data"])
    if (v.is_number()) m = std::max(m, std::fabs(v.get<double>()));
  return m;
}

}  // namespace

TEST_CASE("every op's output matches PyTorch, contiguous and strided", "[ops]") {
  int checked = 0;
  for (const json& c : fixture::load("ops.json")["cases"]) {
    INFO("case " << c["name"].get<std::string>());
    std::vector<Tensor> inputs;
    for (const json& spec : c["inputs"]) inputs.push_back(fixture::make(spec));
    std::vector<Tensor> outputs = fixture::run_op(c["op"], inputs, c["args"]);
    if (c["output"].is_array()) {
      for (size_t i = 0; i < outputs.size(); ++i) CHECK(fixture::compare(outputs[i], c["output"][i]) == "");
    } else {
      CHECK(fixture::compare(outputs[0], c["output"]) == "");
    }
    ++checked;
  }
  CHECK(checked > 400);
}

TEST_CASE("every differentiable op's gradients match PyTorch, through views to the base", "[ops][autograd]") {
  int checked = 0;
  for (const json& c : fixture::load("ops.json")["cases"]) {
    if (!c.contains("grads")) continue;
    INFO("case " << c["name"].get<std::string>());
    std::vector<Tensor> inputs, bases;
    for (const json& spec : c["inputs"]) {
      Tensor base;
      inputs.push_back(fixture::make(spec, /*requires_grad=*/true, &base));
      bases.push_back(base);
    }
    Tensor out = fixture::run_op(c["op"], inputs, c["args"])[0];
    REQUIRE(out.requires_grad());
    out.backward(fixture::make(c["grad_output"]));
    for (size_t i = 0; i < bases.size(); ++i) {
      const json& expected = c["grads"][i];
      if (expected.is_null()) continue;
      INFO("gradient of input " << i);
      REQUIRE(bases[i].grad().defined());
      CHECK(fixture::compare(bases[i].grad(), expected, magnitude(expected)) == "");
    }
    ++checked;
  }
  CHECK(checked > 300);
}
