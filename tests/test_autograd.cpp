// Autograd as the chapter teaches it: graphs hang off their outputs (and hold memory), backward
// runs without recursion and frees what it saved, and no_grad records nothing. The rules for
// in-place ops (saved tensors' versions, leaves, views): test_autograd_inplace.cpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "autograd_leaf.h"
#include "fixture.h"
#include "gradcheck_cases.h"

using namespace ember;
using autograd_leaf::leaf;

TEST_CASE("results of ops on tensors that require grad carry a grad_fn named like PyTorch's", "[autograd]") {
  Tensor x = ones({2, 3}, Options().requires_grad());
  Tensor w = ones({3, 4}, Options().requires_grad());
  Tensor b = ones({4}, Options().requires_grad());
  CHECK(x.is_leaf());
  CHECK(addmm(b, x, w).grad_fn()->name() == "AddmmBackward0");
  CHECK(x.mm(w).grad_fn()->name() == "MmBackward0");
  CHECK(x.sum().grad_fn()->name() == "SumBackward0");
  CHECK(x.relu().grad_fn()->name() == "ReluBackward0");
  CHECK(x.exp().grad_fn()->name() == "ExpBackward0");
  CHECK((x * 2).grad_fn()->name() == "MulBackward1");  // libtorch's C++; Python's is MulBackward0
  CHECK(x.t().grad_fn()->name() == "TBackward0");
  CHECK(linear(x, w.t(), b).grad_fn()->name() == "AddmmBackward0");
  CHECK(cross_entropy(x, from_vector(std::vector<int64_t>{0, 2}, {2})).grad_fn()->name() == "NllLossBackward0");
  CHECK_FALSE((x * 2).is_leaf());
}

TEST_CASE("backward accumulates gradients into leaves across calls", "[autograd]") {
  Tensor x = leaf({1, 2, 3}, {3});
  (x * x).sum().backward();
  CHECK(x.grad().tolist_str() == "[2.0, 4.0, 6.0]");
  (x * x).sum().backward();
  CHECK(x.grad().tolist_str() == "[4.0, 8.0, 12.0]");
}

TEST_CASE("backward of a non-scalar root takes an explicit gradient", "[autograd]") {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = x * 3;
  CHECK_THROWS_WITH(y.backward(), "grad can be implicitly created only for scalar outputs");
  y.backward(tensor({1, 10, 100}));
  CHECK(x.grad().tolist_str() == "[3.0, 30.0, 300.0]");
  CHECK_THROWS_WITH(y.backward(tensor({1, 2})), "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) "
                                                "and output[0] has a shape of torch.Size([3]).");
}

TEST_CASE("backward on a tensor that does not require grad is refused", "[autograd]") {
  CHECK_THROWS_WITH(ones({2}).sum().backward(),
                    "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST_CASE("a second backward through freed saved tensors is refused, retain_graph keeps them", "[autograd]") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = (x * x).sum();
  y.backward({}, /*retain_graph=*/true);
  y.backward();
  CHECK(x.grad().tolist_str() == "[4.0, 8.0]");
  CHECK_THROWS_WITH(y.backward(), "Trying to backward through the graph a second time (or directly access saved "
                                  "tensors after they have already been freed). Saved intermediate values of the "
                                  "graph are freed when you call .backward() or autograd.grad(). Specify "
                                  "retain_graph=True if you need to backward through the graph a second time or if "
                                  "you need to access saved tensors after calling backward.");
}

TEST_CASE("gradients flow from views back to their base", "[autograd][views]") {
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  (x.t()[1] * 5).sum().backward();
  CHECK(x.grad().tolist_str() == "[[0.0, 5.0, 0.0], [0.0, 5.0, 0.0]]");
}

TEST_CASE("detach() shares storage and version counter but not the graph", "[autograd]") {
  Tensor x = leaf({1, 2}, {2});
  Tensor y = x * 2;
  Tensor d = y.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.grad_fn() == nullptr);
  CHECK(d.raw_data() == y.raw_data());
  d.add_(1);
  CHECK(y._version() == 1);
  CHECK(y.tolist_str() == "[3.0, 5.0]");
}

TEST_CASE("a 10000-op chain runs backward without recursion", "[autograd]") {
  Tensor x = leaf({1}, {1});
  Tensor y = x;
  for (int i = 0; i < 10000; ++i) y = y * 1.0001;
  y.sum().backward();
  CHECK(x.grad().item<float>() == Approx(std::pow(1.0001, 10000)).epsilon(1e-3));
}

TEST_CASE("a graph saved by its own output is freed with the last tensor that refers to it", "[autograd][memory]") {
  const int64_t start = memory_allocated();
  {
    Tensor x = leaf({0, 1, 2}, {3});
    const int64_t with_x = memory_allocated();
    {
      Tensor y = x.exp();  // ExpBackward0 saves its own output
      CHECK(memory_allocated() == with_x + 12);
    }
    CHECK(memory_allocated() == with_x);  // no reference cycle between y and its node
  }
  CHECK(memory_allocated() == start);
}

TEST_CASE("keeping losses with their graphs grows memory by exactly what the graphs saved (chapter pitfall 1)",
          "[autograd][memory]") {
  Tensor x = ones({8, 16});
  Tensor w = ones({16, 16}, Options().requires_grad());
  auto loss_of = [&] { return relu(x.mm(w)).sum(); };  // relu saves its [8, 16] output: 512 bytes
  const int64_t start = memory_allocated();
  std::vector<Tensor> bad, detached;
  std::vector<float> items;
  for (int i = 0; i < 3; ++i) bad.push_back(loss_of());
  CHECK(memory_allocated() == start + 3 * (8 * 16 * 4 + 4));  // each graph's activation + the loss itself
  bad.clear();
  CHECK(memory_allocated() == start);
  for (int i = 0; i < 3; ++i) detached.push_back(loss_of().detach());
  CHECK(memory_allocated() == start + 3 * 4);  // only the 4-byte loss values
  detached.clear();
  for (int i = 0; i < 3; ++i) items.push_back(loss_of().item<float>());
  CHECK(memory_allocated() == start);
  CHECK(items[2] == 8 * 16 * 16.0f);
}

TEST_CASE("under no_grad ops record nothing, and what they make can join autograd later", "[autograd][modes]") {
  Tensor w = ones({3}, Options().requires_grad());
  Tensor a;
  {
    NoGradGuard no_grad;
    CHECK_FALSE(GradMode::is_enabled());
    a = w * 2;
    CHECK_FALSE(a.requires_grad());
    CHECK(a.grad_fn() == nullptr);
  }
  CHECK(GradMode::is_enabled());
  CHECK_FALSE(a.is_inference());
  CHECK(a._version() == 0);
  (a * w).sum().backward();  // a is saved for backward: fine, it is an ordinary tensor
  CHECK(w.grad().tolist_str() == "[2.0, 2.0, 2.0]");
}

TEST_CASE("gradients match finite differences (gradcheck in float64)", "[autograd][gradcheck]") {
  for (const GradcheckCase& c : gradcheck_cases()) {
    INFO("gradcheck case: " << c.name);
    CHECK(autograd::gradcheck(c.f, c.inputs(), c.options()));
  }
}

TEST_CASE("every gradcheck case checks each of its inputs: float64 leaves that require grad", "[autograd][gradcheck]") {
  // gradcheck passes over an input that does not require grad, and float32 differences would
  // miss a wrong gradient's small terms.
  for (const GradcheckCase& c : gradcheck_cases()) {
    INFO("gradcheck case: " << c.name);
    const std::vector<Tensor> inputs = c.inputs();
    CHECK_FALSE(inputs.empty());
    for (const Tensor& x : inputs) CHECK((x.dtype() == kFloat64 && x.is_leaf() && x.requires_grad()));
  }
}

TEST_CASE("a 2-layer MLP's loss, gradients and SGD steps match PyTorch", "[autograd][nn]") {
  const fixture::json& f = fixture::load("mlp.json");
  Tensor x = fixture::make(f["x"]), target = fixture::make(f["target"]);
  Tensor w1 = fixture::make(f["W1"], true), b1 = fixture::make(f["b1"], true);
  Tensor w2 = fixture::make(f["W2"], true), b2 = fixture::make(f["b2"], true);
  auto forward = [&] { return mse_loss(linear(relu(linear(x, w1, b1)), w2, b2), target); };
  Tensor loss = forward();
  CHECK(fixture::compare(loss, f["loss"]) == "");
  loss.backward();
  CHECK(fixture::compare(w1.grad(), f["grads"]["W1"]) == "");
  CHECK(fixture::compare(b1.grad(), f["grads"]["b1"]) == "");
  CHECK(fixture::compare(w2.grad(), f["grads"]["W2"]) == "");
  CHECK(fixture::compare(b2.grad(), f["grads"]["b2"]) == "");

  const fixture::json& run = f["sgd_momentum"];
  optim::SGD sgd({w1, b1, w2, b2},
                 optim::SGDOptions(run["lr"]).momentum(run["momentum"]).weight_decay(run["weight_decay"]));
  REQUIRE(run["steps"].size() == 2);
  for (const fixture::json& step : run["steps"]) {
    sgd.zero_grad();
    Tensor step_loss = forward();
    CHECK(fixture::compare(step_loss, step["loss"]) == "");
    step_loss.backward();
    sgd.step();
    CHECK(fixture::compare(w1, step["params"]["W1"]) == "");
    CHECK(fixture::compare(b1, step["params"]["b1"]) == "");
    CHECK(fixture::compare(w2, step["params"]["W2"]) == "");
    CHECK(fixture::compare(b2, step["params"]["b2"]) == "");
  }
  CHECK(w1._version() == static_cast<uint32_t>(run["steps"].size()));  // one in-place update per step
}

TEST_CASE("plain SGD (no momentum, no weight decay) takes PyTorch's step", "[autograd][nn]") {
  const fixture::json& f = fixture::load("mlp.json");
  Tensor x = fixture::make(f["x"]), target = fixture::make(f["target"]);
  Tensor w1 = fixture::make(f["W1"], true), b1 = fixture::make(f["b1"], true);
  Tensor w2 = fixture::make(f["W2"], true), b2 = fixture::make(f["b2"], true);
  const fixture::json& run = f["sgd_plain"];
  optim::SGD sgd({w1, b1, w2, b2}, optim::SGDOptions(run["lr"]));
  REQUIRE(run["steps"].size() == 1);
  for (const fixture::json& step : run["steps"]) {
    sgd.zero_grad();
    mse_loss(linear(relu(linear(x, w1, b1)), w2, b2), target).backward();
    sgd.step();
    CHECK(fixture::compare(w1, step["params"]["W1"]) == "");
    CHECK(fixture::compare(b1, step["params"]["b1"]) == "");
    CHECK(fixture::compare(w2, step["params"]["W2"]) == "");
    CHECK(fixture::compare(b2, step["params"]["b2"]) == "");
  }
}

TEST_CASE("two leaves fed the same gradient get separate .grad tensors", "[autograd]") {
  Tensor a = leaf({1, 2}, {2}), b = leaf({3, 4}, {2});
  (a + b).sum().backward();
  CHECK_FALSE(a.grad().is_same(b.grad()));
  CHECK(a.grad().raw_data() != b.grad().raw_data());
  (a * 3).sum().backward();
  CHECK(a.grad().tolist_str() == "[4.0, 4.0]");
  CHECK(b.grad().tolist_str() == "[1.0, 1.0]");
}

TEST_CASE("an in-place op whose node would save its own tensor leaves no reference cycle", "[autograd][memory]") {
  const int64_t start = memory_allocated();
  {
    Tensor x = leaf({1, 2}, {2});
    Tensor c = tensor({3, 4});
    for (int i = 0; i < 3; ++i) {
      Tensor y = x * 2;
      y.mul_(c);  // c needs no gradient: self's old value is not saved
      y.div_(y);  // self with itself: saved as a plain alias
    }
  }
  CHECK(memory_allocated() == start);
}

TEST_CASE("set_data keeps tensor identity, and undefined tensors raise instead of crashing", "[autograd]") {
  Tensor undefined;
  CHECK(undefined.str() == "[ Tensor (undefined) ]");
  const char* message =
      "ember: this Tensor is undefined (default-constructed, or the .grad() of a tensor before backward)";
  CHECK_THROWS_WITH(undefined.sizes(), message);
  CHECK_THROWS_WITH(mm(ones({2, 2}), undefined), message);
  CHECK_THROWS_WITH(leaf({1}, {1}).grad().sum(), message);
  Tensor w = leaf({1, 2}, {2});
  w.set_data(tensor({7, 8, 9}, kFloat64));
  CHECK(w.requires_grad());
  CHECK(w.tolist_str() == "[7.0, 8.0, 9.0]");
  CHECK_THROWS_WITH(w.set_data(ones({2}, kInt64)),
                    "data set to a tensor that requires gradients must be floating point or complex dtype");
}

TEST_CASE("a graph lists the tensors its nodes saved, and none once backward has freed them", "[autograd]") {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = x.exp();        // ExpBackward0 saves its output
  Tensor z = (y * x).sum();  // MulBackward0 saves both factors
  std::vector<std::string> holders;
  for (const autograd::SavedInGraph& saved : autograd::saved_tensors_in_graph(z)) {
    holders.push_back(saved.node);
    CHECK(saved.tensor.sizes() == Dims{3});
  }
  CHECK(holders == std::vector<std::string>{"MulBackward0", "MulBackward0", "ExpBackward0"});
  z.backward();
  CHECK(autograd::saved_tensors_in_graph(z).empty());
  CHECK(autograd::saved_tensors_in_graph(x).empty());  // a leaf has no graph behind it
}
