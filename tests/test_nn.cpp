// Modules: registration is what parameters(), to() and train()/eval() see. A submodule kept in a
// plain std::vector or a tensor kept as a plain member is invisible to them: the chapter's cause
// of "Expected all tensors to be on the same device".
#include <catch2/catch.hpp>

#include "ember.h"
#include "fixture.h"

using namespace ember;

namespace {

// A model that registers one Linear properly and keeps another in a plain std::vector, plus a
// registered buffer and an unregistered tensor member.
struct LeakyModel : nn::Module {
  std::vector<nn::Linear> hidden;  // not registered
  Tensor scale = ones({4});        // not registered
  nn::Linear head{4, 2};

  LeakyModel() {
    register_module("head", head);
    register_buffer("running_mean", zeros({2}));
    hidden.push_back(nn::Linear(4, 4));
  }
  Tensor forward(const Tensor& x) override { return head(hidden[0](x) * scale); }
};

// A user's module that looks its parameter and buffer up by name, once misspelled.
struct ScaleModule : nn::Module {
  ScaleModule() {
    register_parameter("factor", ones({1}));
    register_buffer("calls", zeros({1}));
  }
  Tensor forward(const Tensor& x) override { return x * parameter("factor"); }
  Tensor& misspelled_parameter() { return parameter("facter"); }
  Tensor& misspelled_buffer() { return buffer("cals"); }
};

}  // namespace

TEST_CASE("registered parameters are found recursively with dotted names", "[nn]") {
  nn::Sequential net{nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2, /*bias=*/false)};
  std::vector<std::string> names;
  for (auto& [name, p] : net->named_parameters()) {
    names.push_back(name);
    CHECK(p.requires_grad());
    CHECK(p.is_leaf());
  }
  CHECK(names == std::vector<std::string>{"0.weight", "0.bias", "2.weight"});
  CHECK(net->parameters().size() == 3);
  CHECK(net->children().size() == 3);
  CHECK(net(ones({5, 4})).sizes() == Dims{5, 2});
}

TEST_CASE("with recurse false parameters and buffers are the module's own, as libtorch's", "[nn]") {
  struct Outer : nn::Module {
    Outer() {
      register_module("inner", std::make_shared<ScaleModule>());
      register_buffer("steps", zeros({1}));
    }
  } outer;
  auto names = [](const NamedTensors& named) {
    std::vector<std::string> out;
    for (const auto& [name, tensor] : named) out.push_back(name);
    return out;
  };
  CHECK(names(outer.named_parameters()) == std::vector<std::string>{"inner.factor"});
  CHECK(outer.named_parameters(/*recurse=*/false).empty());
  CHECK(outer.parameters(false).empty());
  CHECK(names(outer.named_buffers()) == std::vector<std::string>{"steps", "inner.calls"});
  CHECK(names(outer.named_buffers(/*recurse=*/false)) == std::vector<std::string>{"steps"});
  CHECK(outer.buffers(false).size() == 1);
}

TEST_CASE("a submodule in a plain std::vector is not registered: parameters() and to() miss it", "[nn]") {
  LeakyModel model;
  CHECK(model.parameters().size() == 2);  // only head.weight and head.bias
  CHECK(model.buffers().size() == 1);
  model.to(kFloat64);
  CHECK(model.head->weight().dtype() == kFloat64);
  CHECK(model.buffers()[0].dtype() == kFloat64);
  CHECK(model.hidden[0]->weight().dtype() == kFloat32);  // left behind
  CHECK(model.scale.dtype() == kFloat32);                // left behind
  // On a GPU this is "Expected all tensors to be on the same device"; on dtypes it is:
  CHECK_THROWS_WITH(model(ones({1, 4}, kFloat64)), "mat1 and mat2 must have the same dtype");
}

TEST_CASE("train() and eval() reach every registered child", "[nn]") {
  nn::Sequential net{nn::Linear(2, 2), nn::Dropout(0.5)};
  CHECK(net->is_training());
  net->eval();
  CHECK_FALSE(net->is_training());
  CHECK_FALSE(net[1]->is_training());
  net->train();
  CHECK(net[1]->is_training());
}

TEST_CASE("Dropout zeroes and rescales in training and is the identity in evaluation (chapter pitfall 2)", "[nn]") {
  nn::Dropout drop(0.5);
  Tensor x = ones({1000});
  Tensor y = drop(x);
  const std::vector<float> values = y.to_vector<float>();
  int zeros_seen = 0;
  for (float v : values) {
    CHECK((v == 0.0f || v == 2.0f));
    zeros_seen += v == 0.0f;
  }
  CHECK(zeros_seen > 400);
  CHECK(zeros_seen < 600);
  CHECK_FALSE(allclose(drop(x), drop(x)));
  drop->eval();
  CHECK(drop(x).is_same(x));
  CHECK_THROWS_WITH(nn::Dropout(1.5), "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST_CASE("zero_grad zeroes every parameter's gradient in place, or drops it with set_to_none", "[nn]") {
  nn::Linear lin(3, 2);
  lin(ones({4, 3})).sum().backward();
  Tensor weight_grad = lin->weight().grad();
  lin->zero_grad();
  CHECK(lin->weight().grad().is_same(weight_grad));
  CHECK(lin->weight().grad().tolist_str() == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]");
  lin->zero_grad(/*set_to_none=*/true);
  CHECK_FALSE(lin->weight().grad().defined());
  CHECK_FALSE(lin->bias().grad().defined());
}

TEST_CASE("Module::to keeps each parameter the same tensor, so an optimizer built before still updates it", "[nn]") {
  nn::Linear lin(2, 1);
  optim::SGD sgd(lin->parameters(), optim::SGDOptions(0.5));
  lin->to(kFloat64);
  Tensor before = lin->weight().detach().clone();
  lin(ones({1, 2}, kFloat64)).sum().backward();
  sgd.step();
  CHECK(allclose(lin->weight(), before - 0.5));
  CHECK(lin->weight().dtype() == kFloat64);
}

TEST_CASE("Linear's weight is [out, in] and its forward is addmm for 2-d input", "[nn]") {
  nn::Linear lin(5, 3);
  CHECK(lin->weight().sizes() == Dims{3, 5});
  CHECK(lin->bias().sizes() == Dims{3});
  CHECK(lin->weight()._version() == 1);  // one in-place initialisation, as in PyTorch
  CHECK(lin(ones({2, 5})).grad_fn()->name() == "AddmmBackward0");
  CHECK(lin(ones({5})).sizes() == Dims{3});
  CHECK_THROWS_WITH(lin(ones({4, 8})), "mat1 and mat2 shapes cannot be multiplied (4x8 and 5x3)");
}

TEST_CASE("a misspelled parameter or buffer name is an error naming it", "[nn][errors]") {
  // ember's own text: PyTorch's nearest, Module.get_parameter, names the module's Python class.
  ScaleModule scale;
  CHECK(scale(full({2}, 3.0)).tolist_str() == "[3.0, 3.0]");
  CHECK_THROWS_WITH(scale.misspelled_parameter(), "no parameter named facter");
  CHECK_THROWS_WITH(scale.misspelled_buffer(), "no buffer named cals");
}

TEST_CASE("LayerNorm's output and gradients match PyTorch's nn.LayerNorm", "[nn]") {
  const fixture::json& f = fixture::load("nn_modules.json")["layer_norm"];
  nn::LayerNorm norm(Dims{3, 4}, f["eps"].get<double>());
  CHECK(norm->parameters().size() == 2);
  {
    NoGradGuard no_grad;
    norm->weight().copy_(fixture::make(f["weight"]));
    norm->bias().copy_(fixture::make(f["bias"]));
  }
  Tensor x = fixture::make(f["x"], /*requires_grad=*/true);
  Tensor out = norm(x);
  CHECK(out.grad_fn()->name() == "NativeLayerNormBackward0");
  CHECK(fixture::compare(out, f["out"]) == "");
  (out * fixture::make(f["grad_output"])).sum().backward();
  CHECK(fixture::compare(x.grad(), f["grads"]["x"]) == "");
  CHECK(fixture::compare(norm->weight().grad(), f["grads"]["weight"]) == "");
  CHECK(fixture::compare(norm->bias().grad(), f["grads"]["bias"]) == "");

  const fixture::json& plain_case = fixture::load("nn_modules.json")["layer_norm_no_affine"];
  nn::LayerNorm plain(Dims{4}, 1e-5, /*elementwise_affine=*/false);
  CHECK_FALSE(plain->weight().defined());
  CHECK(fixture::compare(plain(fixture::make(plain_case["x"])), plain_case["out"]) == "");
}

TEST_CASE("ModuleList registers its modules but has no forward", "[nn]") {
  nn::ModuleList list;
  list->push_back(nn::Linear(2, 2));
  list->push_back(nn::Linear(2, 2));
  CHECK(list->parameters().size() == 4);
  CHECK_THROWS_WITH(list(ones({2})), "Module [ModuleList] is missing the required \"forward\" function");
}

TEST_CASE("SGD updates in place without recording, bumping each parameter's version", "[nn][optim]") {
  nn::Linear lin(2, 1);
  optim::SGD sgd(lin->parameters(), optim::SGDOptions(0.1));
  const uint32_t before = lin->weight()._version();
  Tensor w0 = lin->weight().clone().detach();
  lin(ones({1, 2})).sum().backward();
  sgd.step();
  CHECK(lin->weight()._version() == before + 1);
  CHECK(lin->weight().is_leaf());
  CHECK(allclose(lin->weight(), w0 - 0.1));
  CHECK_THROWS_WITH(optim::SGD(lin->parameters(), optim::SGDOptions(-1)), "Invalid learning rate: -1");
}

TEST_CASE("a loss module calls its loss function with the reduction it was built with", "[nn]") {
  const Tensor prediction = tensor({1.0, 2.0}), target = zeros({2});
  nn::MSELoss mean_loss;
  CHECK(mean_loss(prediction, target).item<double>() == 2.5);  // (1 + 4) / 2
  CHECK(nn::MSELoss(Reduction::Sum)(prediction, target).item<double>() == 5.0);
  const Tensor logits = tensor({0.5, -1.0, 2.0, 0.0, 1.0, -0.5}).view({2, 3});
  const Tensor classes = from_vector<int64_t>({2, 0}, {2});
  CHECK(equal(nn::CrossEntropyLoss()(logits, classes), cross_entropy(logits, classes)));
  CHECK(equal(nn::NLLLoss(nn::NLLLossOptions().reduction(kSum).ignore_index(0))(log_softmax(logits, 1), classes),
              nll_loss(log_softmax(logits, 1), classes, {}, kSum, 0)));  // class 0 ignored
}
