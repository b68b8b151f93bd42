// Looking at the graph and hooking into it, as a user debugging autograd does, checked against
// PyTorch 1.13 (tests/fixtures/autograd_debug.json, tools/fixtures/autograd_debug.py):
// grad_fn()->next_functions() walks the chapter network's graph as PyTorch's does, tensor hooks
// and node hooks run in PyTorch's order and replace gradients as there, and retain_grad keeps a
// non-leaf's gradient.
#include <catch2/catch.hpp>

#include <map>

#include "captured_warnings.h"
#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

const json& hook_case(const std::string& name) {
  for (const json& c : fixture::load("autograd_debug.json")["hooks"])
    if (c["name"] == name) return c;
  throw std::runtime_error("no hooks case " + name);
}

std::vector<std::string> calls_of(const std::string& name) {
  return hook_case(name)["calls"].get<std::vector<std::string>>();
}

Tensor x_fixture() { return from_vector<float>({1, 2, 3}, {3}).requires_grad_(); }

// "%g" of a number, as the fixture's call names print the gradients hooks see.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

}  // namespace

TEST_CASE("next_functions walks the chapter network's graph as PyTorch's does", "[autograd-debug][graph-walk]") {
  manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  const Tensor loss = big(randn({4, 512})).sum();
  // Depth first from the root, numbering nodes in order of first visit, as the fixture does.
  std::vector<std::shared_ptr<autograd::Node>> order;
  std::map<const autograd::Node*, int> index;
  std::vector<std::shared_ptr<autograd::Node>> stack{loss.grad_fn()};
  auto visit = [&](auto& self, const std::shared_ptr<autograd::Node>& node) -> void {
    if (!node || index.count(node.get())) return;
    index[node.get()] = static_cast<int>(order.size());
    order.push_back(node);
    for (const autograd::Edge& edge : node->next_functions()) self(self, edge.node);
  };
  visit(visit, loss.grad_fn());
  const json& expected = fixture::load("autograd_debug.json")["chapter_graph"]["nodes"];
  REQUIRE(order.size() == expected.size());
  for (size_t i = 0; i < order.size(); ++i) {
    INFO("node " << i << ": " << order[i]->name());
    CHECK(order[i]->name() == expected[i]["name"].get<std::string>());
    const std::vector<autograd::Edge>& next = order[i]->next_functions();
    REQUIRE(next.size() == expected[i]["next"].size());
    for (size_t k = 0; k < next.size(); ++k) {
      const int target = next[k].node ? index.at(next[k].node.get()) : -1;
      CHECK(target == expected[i]["next"][k][0].get<int>());
      CHECK(next[k].input_nr == expected[i]["next"][k][1].get<uint32_t>());
    }
  }
  for (const auto& [name, parameter] : big->named_parameters()) {
    INFO(name);
    CHECK(parameter.is_leaf() == fixture::load("autograd_debug.json")["chapter_graph"]["is_leaf"][name].get<bool>());
  }
  CHECK_FALSE(loss.is_leaf());
}

TEST_CASE("a non-leaf's hooks run in order, and a returned gradient replaces it", "[autograd-debug][hooks]") {
  const std::string name = "non_leaf_hooks_run_in_order_and_replace";
  std::vector<std::string> calls;
  const Tensor x = x_fixture(), y = x * 2;
  y.register_hook([&](const Tensor&) { return calls.push_back("observe"), Tensor(); });
  y.register_hook([&](const Tensor& g) { return calls.push_back("triple"), g * 3; });
  y.register_hook(
      [&](const Tensor& g) { return calls.push_back("sees_tripled_" + number(g[0].item<double>())), Tensor(); });
  (y * y).sum().backward();
  CHECK(calls == calls_of(name));
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
}

TEST_CASE("a leaf's hook runs before its gradient is accumulated", "[autograd-debug][hooks]") {
  const std::string name = "leaf_hook_runs_before_accumulation";
  std::vector<std::string> calls;
  const Tensor x = x_fixture(), y = x * 2;
  x.register_hook([&](const Tensor& g) { return calls.push_back("leaf_" + number(g[0].item<double>())), g + 1; });
  y.sum().backward();
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x_first"]) == "");
  (x * 5).sum().backward();
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x_second"]) == "");
  CHECK(calls == calls_of(name));
}

TEST_CASE("a removed hook does not run", "[autograd-debug][hooks]") {
  const std::string name = "removed_hook_does_not_run";
  std::vector<std::string> calls;
  const Tensor x = x_fixture(), y = x * 2;
  RemovableHandle handle = y.register_hook([&](const Tensor& g) { return calls.push_back("removed"), g * 100; });
  y.register_hook([&](const Tensor&) { return calls.push_back("kept"), Tensor(); });
  handle.remove();
  handle.remove();  // a second remove does nothing
  y.sum().backward();
  CHECK(calls == calls_of(name));
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
}

TEST_CASE("node pre-hooks run after the tensor's hooks and post-hooks may replace what the node passes on",
          "[autograd-debug][hooks]") {
  const std::string name = "node_pre_and_post_hooks";
  std::vector<std::string> calls;
  const Tensor x = x_fixture(), y = x * 2;
  const Tensor w = from_vector<float>({0.5, 0.5, 0.5}, {3}).requires_grad_();
  const Tensor z = y * w;
  z.register_hook([&](const Tensor&) { return calls.push_back("tensor_z"), Tensor(); });
  z.grad_fn()->register_prehook([&](const std::vector<Tensor>& go) {
    calls.push_back("pre_z");
    return std::vector<Tensor>{go[0] * 2};
  });
  z.register_hook([&](const Tensor&) { return calls.push_back("tensor_z_2"), Tensor(); });
  z.grad_fn()->register_hook([&](const std::vector<Tensor>& gi, const std::vector<Tensor>& go) {
    calls.push_back("post_z_" + std::to_string(gi.size()) + "_" + number(gi[0][0].item<double>()) + "_" +
                    number(go[0][0].item<double>()));
    return std::vector<Tensor>{gi[0] * 10, gi[1]};
  });
  y.grad_fn()->register_hook([&](const std::vector<Tensor>&, const std::vector<Tensor>& go) {
    calls.push_back("post_y_" + number(go[0][0].item<double>()));
    return std::vector<Tensor>{};
  });
  z.sum().backward();
  CHECK(calls == calls_of(name));
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
  CHECK(fixture::compare(w.grad(), hook_case(name)["grads"]["w"]) == "");
}

TEST_CASE("retain_grad keeps a non-leaf's gradient as its hooks stood, accumulating", "[autograd-debug][retain-grad]") {
  const std::string name = "retain_grad_keeps_the_gradient_before_later_hooks_and_accumulates";
  std::vector<std::string> calls;
  const Tensor x = x_fixture(), y = x * 2;
  y.retain_grad();
  y.register_hook([&](const Tensor& g) { return calls.push_back("double"), g * 2; });
  const Tensor z = (y * y).sum();
  z.backward({}, /*retain_graph=*/true);
  CHECK(fixture::compare(y.grad(), hook_case(name)["grads"]["y_first"]) == "");
  calls.push_back(std::string("retains_grad_") + (y.retains_grad() ? "True" : "False") + "_leaf_" +
                  (x.retains_grad() ? "True" : "False"));
  z.backward();
  CHECK(fixture::compare(y.grad(), hook_case(name)["grads"]["y_second"]) == "");
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
  CHECK(calls == calls_of(name));
}

TEST_CASE("retain_grad registered after a hook sees that hook's replacement", "[autograd-debug][retain-grad]") {
  const std::string name = "retain_grad_registered_after_a_hook_sees_its_replacement";
  const Tensor x = x_fixture(), y = x * 2;
  y.register_hook([&](const Tensor& g) { return g * 2; });
  y.retain_grad();
  (y * y).sum().backward();
  CHECK(fixture::compare(y.grad(), hook_case(name)["grads"]["y"]) == "");
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
}

TEST_CASE("retain_grad on a leaf changes nothing", "[autograd-debug][retain-grad]") {
  const std::string name = "retain_grad_on_a_leaf_changes_nothing";
  const Tensor x = x_fixture();
  x.retain_grad();
  CHECK(calls_of(name) ==
        std::vector<std::string>{std::string("leaf_retains_grad_") + (x.retains_grad() ? "True" : "False")});
  (x * 2).sum().backward();
  CHECK(fixture::compare(x.grad(), hook_case(name)["grads"]["x"]) == "");
}

TEST_CASE("a retained gradient silences the non-leaf .grad warning", "[autograd-debug][retain-grad]") {
  const Tensor x = x_fixture(), y = x * 2;
  y.retain_grad();
  CapturedWarnings warnings;
  CHECK_FALSE(y.grad().defined());  // before backward: undefined, and no warning
  CHECK(warnings.texts.empty());
}

TEST_CASE("hooks and retain_grad need a tensor that requires grad", "[autograd-debug][hooks][errors]") {
  const Tensor c = ones({2});
  CHECK_THROWS_WITH(c.register_hook([](const Tensor& g) { return g; }),
                    "cannot register a hook on a tensor that doesn't require gradient");
  CHECK_THROWS_WITH(c.retain_grad(), "can't retain_grad on Tensor that has requires_grad=False");
}

TEST_CASE("graphs from one leaf share its AccumulateGrad node, which keeps the leaf alive",
          "[autograd-debug][graph-walk]") {
  std::weak_ptr<TensorImpl> leaf_alive;
  Tensor doubled, tripled;
  {
    Tensor leaf = from_vector<float>({1, 2}, {2}).requires_grad_();
    leaf_alive = leaf.impl_ptr();
    doubled = leaf * 2;
    tripled = leaf * 3;
  }
  auto accumulate = doubled.grad_fn()->next_functions()[0].node;
  CHECK(accumulate->name() == "torch::autograd::AccumulateGrad");
  CHECK(accumulate == tripled.grad_fn()->next_functions()[0].node);
  CHECK_FALSE(leaf_alive.expired());  // the user dropped it; the graphs hold it, as PyTorch's do

  doubled.sum().backward();  // still reaches the leaf's .grad
  CHECK(Tensor(leaf_alive.lock()).grad().to_vector<float>() == std::vector<float>{2, 2});
  doubled = tripled = Tensor();
  CHECK_FALSE(leaf_alive.expired());  // a handle on its node holds it too
  accumulate.reset();
  CHECK(leaf_alive.expired());  // and with the graphs, the leaf goes: no cycle through its node
}

TEST_CASE("after set_data, a leaf's gradient takes the new data's sizes", "[autograd-debug][graph-walk]") {
  Tensor leaf = from_vector<float>({1, 2}, {2}).requires_grad_();
  (leaf * 2).sum().backward();
  leaf.mutable_grad() = Tensor();
  leaf.set_data(from_vector<float>({1, 2, 3}, {3}));
  (leaf * 2).sum().backward();
  CHECK(leaf.grad().sizes() == Dims{3});
}
