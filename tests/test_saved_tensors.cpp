// What each backward node keeps, for every combination of inputs that require grad, is what
// PyTorch 1.13 keeps (tests/fixtures/fidelity.json's saved_* cases, tools/fixtures/fidelity_saved.py):
// an input only when a gradient that reads it will be computed (saved_tensor.h, Note [Saving only
// what a gradient reads]). Keeping more leaks: the issue's `x.add_(x * c)` made x's graph hold x.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "fidelity_fixture.h"
#include "gradcheck_cases.h"

using namespace ember;
using fixture::json;

namespace {

using Op = std::function<Tensor(const std::vector<Tensor>&)>;

// fidelity_saved.py's SAVE_OPS, with ember's API; in-place ops write a copy of input 0.
const std::map<std::string, Op>& ops() {
  static const std::map<std::string, Op> table{
      {"mul", [](const auto& in) { return in[0] * in[1]; }},
      {"mul_number", [](const auto& in) { return wrapped_number::mul(in[0], 2); }},
      {"div", [](const auto& in) { return in[0] / in[1]; }},
      {"div_number", [](const auto& in) { return wrapped_number::div(in[0], 2); }},
      {"mul_", [](const auto& in) { return (in[0] * 1).mul_(in[1]); }},
      {"div_", [](const auto& in) { return (in[0] * 1).div_(in[1]); }},
      {"exp", [](const auto& in) { return in[0].exp(); }},
      {"log", [](const auto& in) { return in[0].log(); }},
      {"sqrt", [](const auto& in) { return in[0].sqrt(); }},
      {"pow", [](const auto& in) { return in[0].pow(3); }},
      {"abs", [](const auto& in) { return abs(in[0]); }},
      {"relu", [](const auto& in) { return in[0].relu(); }},
      {"sigmoid", [](const auto& in) { return in[0].sigmoid(); }},
      {"tanh", [](const auto& in) { return in[0].tanh(); }},
      {"where", [](const auto& in) { return where(in[0], in[1], in[2]); }},
      {"mean_dim", [](const auto& in) { return in[0].mean({1}); }},
      {"max", [](const auto& in) { return in[0].max(); }},
      {"max_dim", [](const auto& in) { return max(in[0], 1).values; }},
      {"mm", [](const auto& in) { return mm(in[0], in[1]); }},
      {"addmm", [](const auto& in) { return addmm(in[0], in[1], in[2]); }},
      {"bmm", [](const auto& in) { return bmm(in[0], in[1]); }},
      {"dot", [](const auto& in) { return matmul(in[0], in[1]); }},
      {"mv", [](const auto& in) { return matmul(in[0], in[1]); }},
      {"softmax", [](const auto& in) { return softmax(in[0], 1); }},
      {"log_softmax", [](const auto& in) { return log_softmax(in[0], 1); }},
      {"layer_norm", [](const auto& in) { return layer_norm(in[0], {3}, in[1], in[2]); }},
      {"mse_loss", [](const auto& in) { return mse_loss(in[0], in[1]); }},
      {"nll_loss", [](const auto& in) { return nll_loss(in[0], in[1]); }},
      {"addcmul", [](const auto& in) { return addcmul(in[0], in[1], in[2]); }},
      {"addcdiv", [](const auto& in) { return addcdiv(in[0], in[1], in[2]); }},
      {"addcmul_", [](const auto& in) { return (in[0] * 1).addcmul_(in[1], in[2]); }},
      {"addcdiv_", [](const auto& in) { return (in[0] * 1).addcdiv_(in[1], in[2]); }},
      {"maximum", [](const auto& in) { return maximum(in[0], in[1]); }},
      {"minimum", [](const auto& in) { return minimum(in[0], in[1]); }},
      {"clamp", [](const auto& in) { return in[0].clamp(0, 1); }},
      {"clamp_min", [](const auto& in) { return in[0].clamp_min(0); }},
      {"clamp_max", [](const auto& in) { return in[0].clamp_max(1); }},
  };
  return table;
}

// The inputs of fidelity_saved.py: input 0 filled with 2, the others with 1, where, the condition
// of where and nll_loss's target (int64) excepted.
std::vector<Tensor> inputs_of(const std::string& op, const json& requires_grad) {
  const std::map<std::string, std::vector<Dims>> shapes{
      {"where", {{2, 3}, {2, 3}, {2, 3}}}, {"mm", {{2, 3}, {3, 2}}},    {"addmm", {{2, 2}, {2, 3}, {3, 2}}},
      {"bmm", {{1, 2, 3}, {1, 3, 2}}},     {"dot", {{3}, {3}}},         {"mv", {{2, 3}, {3}}},
      {"layer_norm", {{2, 3}, {3}, {3}}},  {"nll_loss", {{2, 3}, {2}}},
  };
  const auto found = shapes.find(op);
  std::vector<Dims> sizes = found != shapes.end() ? found->second : std::vector<Dims>(requires_grad.size(), {2, 3});
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (op == "where" && i == 0) inputs.push_back(ones(sizes[i], kBool));
    else if (op == "nll_loss" && i == 1) inputs.push_back(ones(sizes[i], kInt64));
    else inputs.push_back(full(sizes[i], i == 0 ? 2.0 : 1.0));
    if (requires_grad[i].get<bool>()) inputs.back().requires_grad_();
  }
  return inputs;
}

std::string describe(const Tensor& saved, const std::vector<Tensor>& inputs, const Tensor& output) {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (saved.is_same(inputs[i])) return "input" + std::to_string(i);
  const bool is_output =
      saved.is_alias_of(output) && saved.sizes() == output.sizes() && saved.storage_offset() == output.storage_offset();
  return is_output ? "output" : "other";
}

// Nodes whose formula reads less than PyTorch's, and what PyTorch keeps that ember does not.
const std::map<std::string, std::vector<std::string>>& kept_only_by_pytorch() {
  static const std::map<std::string, std::vector<std::string>> less{
      // layer_norm's backward reads the bias only for its own gradient, which is g summed: no bias needed.
      {"layer_norm", {"input2"}},
      // nll_loss's formula needs log_probs' sizes, not log_probs (it keeps the target, the weight and
      // the total weight, as PyTorch).
      {"nll_loss", {"input0"}},
  };
  return less;
}

}  // namespace

TEST_CASE("every node keeps the tensors PyTorch keeps for the inputs that require grad, and no others",
          "[autograd][saved]") {
  const std::vector<json> cases = fidelity::cases_starting("saved_");
  REQUIRE(cases.size() >= 50);
  std::set<std::string> ops_seen;
  for (const json& c : cases) {
    const std::string op = c["op"];
    INFO(c["name"].get<std::string>());
    ops_seen.insert(op);
    const std::vector<Tensor> inputs = inputs_of(op, c["requires_grad"]);
    const Tensor output = ops().at(op)(inputs);
    REQUIRE(output.grad_fn() != nullptr);
    std::vector<std::string> saved;
    for (const Tensor& t : output.grad_fn()->saved_tensors()) saved.push_back(describe(t, inputs, output));
    std::vector<std::string> expected = c["saved"].get<std::vector<std::string>>();
    if (const auto less = kept_only_by_pytorch().find(op); less != kept_only_by_pytorch().end())
      for (const std::string& only_pytorch : less->second) {
        const auto at = std::find(expected.begin(), expected.end(), only_pytorch);
        REQUIRE(at != expected.end());
        expected.erase(at);
      }
    std::sort(saved.begin(), saved.end());
    CHECK(saved == expected);
  }
  CHECK(ops_seen.size() == ops().size());
}

TEST_CASE("x.add_(x * c) with a constant c leaves memory where it was when x goes", "[autograd][saved]") {
  // The repro: a MulBackward0 that kept x made a cycle through x's own grad_fn (add_'s
  // AddBackward0), so x, its graph and the saved tensors were never freed. The test runner checks
  // memory_allocated on exit; this checks it right after the scope too.
  const int64_t before = memory_allocated();
  {
    Tensor x = exp(ones({4}, Options().requires_grad()));
    x.add_(mul(x, full({4}, 2.0)));
    CHECK(x.grad_fn()->name() == "AddBackward0");
  }
  CHECK(memory_allocated() == before);
}

TEST_CASE("gradients through nodes that kept one operand agree with finite differences", "[autograd][saved]") {
  // Each product with one operand a constant (captured, so it does not require grad): its node
  // keeps only the constant, which the other operand's gradient reads.
  using F = std::function<Tensor(const Tensor&, const Tensor&)>;
  const std::vector<std::pair<std::string, F>> products{
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
      {"mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); }},
      {"addmm", [](const Tensor& a, const Tensor& b) { return addmm(a * b, a, b); }},
      {"bmm", [](const Tensor& a, const Tensor& b) { return bmm(a.unsqueeze(0), b.unsqueeze(0)); }},
      {"dot", [](const Tensor& a, const Tensor& b) { return matmul(a.select(0, 0), b.select(1, 1)); }},
      {"mv", [](const Tensor& a, const Tensor& b) { return matmul(a, b.select(1, 0)); }},
      {"mul_", [](const Tensor& a, const Tensor& b) { return (a * 1).mul_(b); }},
      {"div_", [](const Tensor& a, const Tensor& b) { return (a * 1).div_(b); }},
      {"addcmul", [](const Tensor& a, const Tensor& b) { return addcmul(b, a, b); }},
      {"addcdiv", [](const Tensor& a, const Tensor& b) { return addcdiv(b, a, b); }},
  };
  const Tensor constant = arange(1.0, 5.0, 1.0, kFloat64).reshape({2, 2});
  for (const auto& entry : products) {  // no structured binding: a lambda below captures it (clang 14)
    const auto& product = entry.second;
    INFO(entry.first);
    const Tensor x = arange(2.0, 6.0, 1.0, kFloat64).reshape({2, 2}).requires_grad_();
    CHECK(autograd::gradcheck([&](const auto& in) { return product(in[0], constant); }, {x}, kTightGradcheck));
    const Tensor y = arange(2.0, 6.0, 1.0, kFloat64).reshape({2, 2}).requires_grad_();
    CHECK(autograd::gradcheck([&](const auto& in) { return product(constant, in[0]); }, {y}, kTightGradcheck));
  }
}
