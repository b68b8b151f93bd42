// Saved-tensor hooks behave as PyTorch 1.13's torch.autograd.graph.saved_tensors_hooks
// (tests/fixtures/saved_hooks.json, tools/fixtures/saved_hooks.py): which tensors are packed and
// in what order, what backward unpacks and in what order, and the gradients computed from what
// unpack returns. Every refused use, with PyTorch's text: test_saved_tensors_hooks_errors.cpp.
#include <catch2/catch.hpp>

#include <any>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "fixture.h"
#include "saved_hooks_fixture.h"

using namespace ember;
using autograd::saved_tensors_hooks;
using fixture::json;
using saved_hooks_fixture::hooks_fixture;
using saved_hooks_fixture::values;

namespace {

struct Network {
  Tensor x, target;
  std::map<std::string, Tensor> parameters;  // w1, b1, w2, b2: leaves that require grad
};

Network network_inputs() {
  const json& inputs = hooks_fixture()["order"]["inputs"];
  Network net{fixture::make(inputs["x"]), fixture::make(inputs["target"]), {}};
  for (const char* name : {"w1", "b1", "w2", "b2"}) net.parameters[name] = fixture::make(inputs[name], true);
  return net;
}

// saved_hooks.py's NETWORK: linear, tanh, linear, o * o / (exp(o) + o), MSE loss.
Tensor network_loss(Network& net) {
  auto& p = net.parameters;
  const Tensor h = linear(net.x, p["w1"], p["b1"]).tanh();
  const Tensor o = linear(h, p["w2"], p["b2"]);
  const Tensor square = o * o;  // one statement each: C++ does not fix the order of an expression's operands
  const Tensor denominator = o.exp() + o;
  return mse_loss(square / denominator, net.target);
}

void check_grads(const Network& net, const json& expected) {
  for (const auto& [name, parameter] : net.parameters) {
    INFO(name);
    CHECK(fixture::compare(parameter.grad(), expected[name]) == "");
  }
}

}  // namespace

TEST_CASE("pack runs once per saved tensor in PyTorch's order, and backward unpacks each once in PyTorch's order",
          "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["order"];
  Network net = network_inputs();
  std::vector<Dims> packed_shapes;
  std::vector<int64_t> unpacked;
  Tensor loss;
  {
    saved_tensors_hooks hooks(
        [&](const Tensor& t) -> std::any {
          packed_shapes.push_back(t.sizes());
          return std::make_pair(static_cast<int64_t>(packed_shapes.size() - 1), t);
        },
        [&](const std::any& packed) {
          const auto& [id, t] = std::any_cast<const std::pair<int64_t, Tensor>&>(packed);
          unpacked.push_back(id);
          return t;
        });
    loss = network_loss(net);
  }
  REQUIRE(packed_shapes.size() == expected["packs"].size());
  for (size_t i = 0; i < packed_shapes.size(); ++i)
    CHECK(packed_shapes[i] == Dims(expected["packs"][i]["shape"].get<std::vector<int64_t>>()));
  CHECK(unpacked.empty());
  loss.backward();
  CHECK(unpacked == expected["unpacks"].get<std::vector<int64_t>>());
  check_grads(net, expected["grads"]);
}

TEST_CASE("each node packs what it saves and unpacks it in backward in PyTorch's order",
          "[autograd-view][saved-hooks]") {
  using Op = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::map<std::string, std::pair<Op, std::vector<Dims>>> ops{
      {"mul", {[](const auto& in) { return in[0] * in[1]; }, {{3}, {3}}}},
      {"div", {[](const auto& in) { return in[0] / in[1]; }, {{3}, {3}}}},
      {"addcmul", {[](const auto& in) { return addcmul(in[0], in[1], in[2]); }, {{3}, {3}, {3}}}},
      {"addcdiv", {[](const auto& in) { return addcdiv(in[0], in[1], in[2]); }, {{3}, {3}, {3}}}},
      {"maximum", {[](const auto& in) { return maximum(in[0], in[1]); }, {{3}, {3}}}},
      {"minimum", {[](const auto& in) { return minimum(in[0], in[1]); }, {{3}, {3}}}},
      {"max", {[](const auto& in) { return in[0].max(); }, {{3}}}},
      {"mm", {[](const auto& in) { return mm(in[0], in[1]); }, {{2, 3}, {3, 2}}}},
      {"addmm", {[](const auto& in) { return addmm(in[0], in[1], in[2]); }, {{2, 2}, {2, 3}, {3, 2}}}},
      {"bmm", {[](const auto& in) { return bmm(in[0], in[1]); }, {{1, 2, 3}, {1, 3, 2}}}},
      {"dot", {[](const auto& in) { return matmul(in[0], in[1]); }, {{3}, {3}}}},
      {"mv", {[](const auto& in) { return matmul(in[0], in[1]); }, {{2, 3}, {3}}}},
      {"layer_norm", {[](const auto& in) { return layer_norm(in[0], {3}, in[1], in[2]); }, {{2, 3}, {3}, {3}}}},
      {"mse_loss", {[](const auto& in) { return mse_loss(in[0], in[1]); }, {{3}, {3}}}},
      {"exp", {[](const auto& in) { return in[0].exp(); }, {{3}}}},
      {"tanh", {[](const auto& in) { return in[0].tanh(); }, {{3}}}},
      {"sigmoid", {[](const auto& in) { return in[0].sigmoid(); }, {{3}}}},
      {"softmax", {[](const auto& in) { return softmax(in[0], 0); }, {{3}}}},
  };
  const json& expected_orders = hooks_fixture()["node_orders"];
  REQUIRE(expected_orders.size() == ops.size());
  for (const auto& [op, entry] : ops) {
    INFO(op);
    std::vector<Tensor> inputs;
    for (const Dims& sizes : entry.second) {
      size_t count = 1;
      for (int64_t size : sizes) count *= static_cast<size_t>(size);
      std::vector<double> values(count);
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i + 1) / 2;
      inputs.push_back(tensor(values, sizes, Options().requires_grad()));
    }
    std::vector<Tensor> packed;
    std::vector<size_t> unpacked;
    Tensor y;
    {
      saved_tensors_hooks hooks(
          [&](const Tensor& t) -> std::any {
            packed.push_back(t);
            return packed.size() - 1;
          },
          [&](const std::any& index) {
            unpacked.push_back(std::any_cast<size_t>(index));
            return packed[unpacked.back()];
          });
      y = entry.first(inputs);
    }
    auto name = [&](const Tensor& t) -> std::string {
      for (size_t i = 0; i < inputs.size(); ++i)
        if (t.is_same(inputs[i])) return "in" + std::to_string(i);
      const bool is_output = t.is_alias_of(y) && t.sizes() == y.sizes() && t.storage_offset() == y.storage_offset();
      return is_output ? "out" : "other";
    };
    std::vector<std::string> packs, unpacks;
    for (const Tensor& t : packed) packs.push_back(name(t));
    y.sum().backward();
    for (size_t i : unpacked) unpacks.push_back(packs[i]);
    auto expected_packs = expected_orders[op]["packs"].get<std::vector<std::string>>();
    auto expected_unpacks = expected_orders[op]["unpacks"].get<std::vector<std::string>>();
    if (op == "layer_norm") {  // ember keeps no bias: its gradient is g summed (test_saved_tensors.cpp)
      std::erase(expected_packs, "in2");
      std::erase(expected_unpacks, "in2");
    }
    CHECK(packs == expected_packs);
    CHECK(unpacks == expected_unpacks);
  }
}

TEST_CASE("saved activations packed as bfloat16 and unpacked to float32 give PyTorch's gradients",
          "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["compact"];
  Network net = network_inputs();
  Tensor loss;
  {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return std::make_pair(t.dtype(), t.to(kBFloat16)); },
                              [](const std::any& packed) {
                                const auto& [dtype, t] = std::any_cast<const std::pair<DType, Tensor>&>(packed);
                                return t.to(dtype);
                              });
    loss = network_loss(net);
  }
  loss.backward();
  check_grads(net, expected["grads"]);
  // The compact gradients are not the exact ones: the hooks did change what backward read.
  CHECK(fixture::compare(net.parameters["b2"].grad(), expected["exact_grads"]["b2"]) != "");
}

TEST_CASE("a tensor saved through hooks is not version-checked: an in-place change after saving goes unnoticed",
          "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["inplace_after_save"];
  for (const bool copy : {false, true}) {
    INFO((copy ? "pack copies" : "pack keeps the tensor"));
    Tensor a = values({1, 2, 3});
    Tensor b = a * 2;
    Tensor y;
    {
      saved_tensors_hooks hooks([&](const Tensor& t) -> std::any { return copy ? t.clone() : t; },
                                [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
      y = b * b;
    }
    b.add_(1);
    y.sum().backward();
    CHECK(fixture::compare(a.grad(), expected[copy ? "copy_grad" : "grad"]) == "");
  }
}

TEST_CASE("nested saved-tensor hooks: only the innermost pair applies", "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["nested"];
  Tensor a = values({1, 2, 3}), b = values({-1, 0.5, 4});
  Tensor y, z;
  {
    auto times = [](double k) {
      return std::make_pair([k](const Tensor& t) -> std::any { return t * k; },
                            [k](const std::any& packed) { return std::any_cast<Tensor>(packed) * k; });
    };
    auto [pack3, unpack3] = times(3);
    saved_tensors_hooks outer(pack3, unpack3);
    {
      auto [pack5, unpack5] = times(5);
      saved_tensors_hooks inner(pack5, unpack5);
      y = a * a;
    }
    z = b * b;
  }
  y.sum().backward();
  z.sum().backward();
  CHECK(fixture::compare(a.grad(), expected["a_grad"]) == "");
  CHECK(fixture::compare(b.grad(), expected["b_grad"]) == "");
}

TEST_CASE("hooks registered on one saved tensor pack it and unpack it, as _raw_saved_self.register_hooks",
          "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["register"];
  for (const bool halve : {true, false}) {
    INFO((halve ? "unpack halves" : "unpack keeps"));
    Tensor a = values({1, 2, 3});
    Tensor y = a * a;
    auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
    saved_self.register_hooks([](const Tensor& t) -> std::any { return t * 2; },
                              [halve](const std::any& packed) {
                                const Tensor t = std::any_cast<Tensor>(packed);
                                return halve ? t / 2 : t;
                              });
    CHECK(saved_self.has_hooks());
    y.sum().backward();
    CHECK(fixture::compare(a.grad(), expected[halve ? "halved_grad" : "doubled_grad"]) == "");
  }
}

TEST_CASE("with retain_graph the packed values stay, and each backward unpacks them again",
          "[autograd-view][saved-hooks]") {
  int unpacks = 0;
  Tensor a = values({1, 2, 3});
  Tensor y;
  {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t; },
                              [&](const std::any& packed) {
                                ++unpacks;
                                return std::any_cast<Tensor>(packed);
                              });
    y = (a * a).sum();
  }
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(unpacks == hooks_fixture()["retain"]["unpacks"].get<int>());
}

TEST_CASE("a number multiplied in is packed as a 0-dim tensor holding it", "[autograd-view][saved-hooks]") {
  const json& expected = hooks_fixture()["number"];
  std::vector<Tensor> packed;
  Tensor a = values({1, 2, 3});
  {
    saved_tensors_hooks hooks(
        [&](const Tensor& t) -> std::any {
          packed.push_back(t);
          return t;
        },
        [](const std::any& value) { return std::any_cast<Tensor>(value); });
    (void)wrapped_number::mul(a, 3);  // Python's `a * 3`
  }
  REQUIRE(packed.size() == 1);
  CHECK(packed[0].sizes() == Dims(expected["shape"].get<std::vector<int64_t>>()));
  CHECK(packed[0].item<double>() == expected["value"].get<double>());
}

TEST_CASE("packing holds only the packed value: a bfloat16 pack halves what a kept loss holds",
          "[autograd-view][saved-hooks]") {
  // The point of the hooks: what the graph keeps is what pack returned. exp saves its output, 1024
  // float32 values; packed as bfloat16 the kept loss holds half of those bytes.
  Tensor a = ones({1024}, Options().requires_grad());
  auto kept_by_loss = [&](bool compact) {
    const int64_t before = memory_allocated();
    Tensor loss;
    if (compact) {
      saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t.to(kBFloat16); },
                                [](const std::any& packed) { return std::any_cast<Tensor>(packed).to(kFloat32); });
      loss = a.exp().sum();  // the exp output is dropped here; only the packed copy stays
    } else {
      loss = a.exp().sum();
    }
    const int64_t kept = memory_allocated() - before;
    loss.backward();
    return kept;
  };
  const int64_t plain = kept_by_loss(false);
  const Tensor plain_grad = a.grad().clone();
  a.mutable_grad() = Tensor();
  const int64_t compact = kept_by_loss(true);
  CHECK(plain - compact == 1024 * 2);
  CHECK(allclose(a.grad(), plain_grad, 1e-2));
  CHECK_FALSE(equal(a.grad(), plain_grad));  // exp(1) rounded to bfloat16 is not exp(1)
}

TEST_CASE("without hooks a saved tensor is kept as it is and version-checked as before",
          "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor b = a * 2;
  Tensor y = b * b;
  CHECK_FALSE(std::get<autograd::MulBackward0>(y.grad_fn()->fn).self.has_hooks());
  b.add_(1);
  CHECK_THROWS_WITH(y.sum().backward(), Catch::Contains("modified by an inplace operation"));
}
