// An optimizer's parameter groups and state, from C++ (libtorch's names): each group's options are
// its own and a group added later is given the defaults; state() holds what each parameter has
// stepped with; state_dict() numbers the parameters across the groups, and load_state_dict()
// refuses a dict whose groups do not match, with PyTorch's texts (tests/fixtures/optim.json's
// "refusals", tools/fixtures/optim.py). That a loaded optimizer continues a run bit for bit is
// tests/test_optim.cpp's.
#include <catch2/catch.hpp>

#include "device_cases.h"
#include "ember.h"
#include "fixture.h"

using namespace ember;
using fixture::json;

namespace {

// PyTorch's message for the fixture's refusal `name`.
std::string optim_refusal(const std::string& name) {
  for (const json& refusal : fixture::load("optim.json")["refusals"])
    if (refusal["name"] == name) return refusal["message"];
  FAIL("no refusal named " << name);
  return "";
}

Tensor leaf(double value, int64_t size = 2) { return full({size}, value, Options().requires_grad()); }

double lr_of(const optim::OptimizerParamGroup& group) { return group.options().get_lr(); }

}  // namespace

TEST_CASE("a group made without options is given the optimizer's defaults, one with options keeps its own", "[optim]") {
  Tensor a = leaf(1), b = leaf(2), c = leaf(3);
  optim::SGD sgd(
      {optim::OptimizerParamGroup({a}), optim::OptimizerParamGroup({b}, optim::SGDOptions(0.5).momentum(0.9).clone())},
      optim::SGDOptions(0.1));
  sgd.add_param_group(optim::OptimizerParamGroup({c}));
  REQUIRE(sgd.param_groups().size() == 3);
  CHECK(lr_of(sgd.param_groups()[0]) == 0.1);
  CHECK(lr_of(sgd.param_groups()[1]) == 0.5);
  CHECK(static_cast<const optim::SGDOptions&>(sgd.param_groups()[1].options()).momentum() == 0.9);
  CHECK(lr_of(sgd.param_groups()[2]) == 0.1);
  CHECK(sgd.parameters().size() == 3);
  // Each group steps with its own learning rate; a rate changed in the group is the next step's.
  for (Tensor p : {a, b, c}) p.sum().backward();
  sgd.param_groups()[2].options().set_lr(1.0);
  sgd.step();
  CHECK(a.tolist_str() == "[0.8999999761581421, 0.8999999761581421]");
  CHECK(b.tolist_str() == "[1.5, 1.5]");
  CHECK(c.tolist_str() == "[2.0, 2.0]");
}

TEST_CASE("a parameter may be in one group only, and a group only of leaves, as PyTorch says", "[optim][errors]") {
  Tensor a = leaf(1), b = leaf(2);
  optim::Adam adam({a});
  CHECK_THROWS_WITH(adam.add_param_group(optim::OptimizerParamGroup({b, a})),
                    optim_refusal("an_added_group_already_held"));
  CHECK_THROWS_WITH(adam.add_param_group(optim::OptimizerParamGroup({b * 2})),
                    optim_refusal("a_non_leaf_in_an_added_group"));
  CHECK_THROWS_WITH(optim::SGD({optim::OptimizerParamGroup({a}), optim::OptimizerParamGroup({a})}, 0.1),
                    optim_refusal("a_parameter_in_two_groups"));
  CHECK(adam.param_groups().size() == 1);  // nothing was added by the refusals
}

TEST_CASE("state() holds each stepped parameter's state by libtorch's names", "[optim]") {
  Tensor a = leaf(1), unused = leaf(2);
  optim::SGD sgd({a, unused}, optim::SGDOptions(0.1).momentum(0.9));
  (a * a).sum().backward();
  sgd.step();
  REQUIRE(sgd.state().size() == 1);  // no gradient, no state
  const auto& state = static_cast<const optim::SGDParamState&>(*sgd.state().at(a.impl()));
  CHECK(state.momentum_buffer().tolist_str() == "[2.0, 2.0]");
}

TEST_CASE("state_dict numbers the parameters across the groups and holds the optimizer's own tensors", "[optim]") {
  Tensor a = leaf(1), b = leaf(2), c = leaf(3);
  optim::SGD sgd({optim::OptimizerParamGroup({a}), optim::OptimizerParamGroup({b, c})},
                 optim::SGDOptions(0.1).momentum(0.9));
  (c * c).sum().backward();
  sgd.step();
  const optim::OptimizerStateDict saved = sgd.state_dict();
  REQUIRE(saved.param_groups.size() == 2);
  CHECK(saved.param_groups[0].params == std::vector<int64_t>{0});
  CHECK(saved.param_groups[1].params == std::vector<int64_t>{1, 2});
  CHECK(saved.param_groups[1].options->get_lr() == 0.1);
  REQUIRE(saved.state.size() == 1);
  const optim::NamedTensors& state = saved.state.at(2);
  REQUIRE(state.size() == 1);
  CHECK(state[0].first == "momentum_buffer");
  CHECK(state[0].second.is_same(static_cast<const optim::SGDParamState&>(*sgd.state().at(c.impl())).momentum_buffer()));
}

TEST_CASE("SGD without momentum keeps an empty momentum buffer for each parameter that stepped", "[optim]") {
  // PyTorch's state_dict shows it as {0: {'momentum_buffer': None}} (the fixture's printed dict).
  CHECK(fixture::load("optim.json")["printed"]["sgd_without_momentum"].get<std::string>().find(
            "'state': {0: {'momentum_buffer': None}}") != std::string::npos);
  Tensor a = leaf(1), b = leaf(2);
  optim::SGD sgd({a, b}, optim::SGDOptions(0.1));
  a.sum().backward();
  sgd.step();
  const optim::OptimizerStateDict saved = sgd.state_dict();
  REQUIRE(saved.state.size() == 1);
  REQUIRE(saved.state.at(0).size() == 1);
  CHECK(saved.state.at(0)[0].first == "momentum_buffer");
  CHECK_FALSE(saved.state.at(0)[0].second.defined());
}

TEST_CASE("load_state_dict copies the state it is given and takes the saved groups' options", "[optim]") {
  const int64_t start = memory_allocated();
  {
    Tensor a = leaf(1), b = leaf(1);
    optim::Adam first({a}, optim::AdamOptions(0.1).amsgrad(true));
    a.sum().backward();
    first.step();
    first.param_groups()[0].options().set_lr(0.25);
    const optim::OptimizerStateDict saved = first.state_dict();
    optim::Adam second({b}, optim::AdamOptions(0.5));
    second.load_state_dict(saved);
    CHECK(lr_of(second.param_groups()[0]) == 0.25);
    const auto& state = static_cast<const optim::AdamParamState&>(*second.state().at(b.impl()));
    CHECK(state.step().item<float>() == 1.0f);
    CHECK(state.max_exp_avg_sq().defined());
    CHECK_FALSE(state.exp_avg().is_same(saved.state.at(0)[1].second));  // a copy, as PyTorch's deepcopy
    CHECK(state.exp_avg().tolist_str() == saved.state.at(0)[1].second.tolist_str());
    second.param_groups()[0].options().set_lr(1.0);  // the saved options were copied too
    CHECK(saved.param_groups[0].options->get_lr() == 0.25);
    optim::OptimizerStateDict without_options = saved;  // a group saved without options keeps its own
    without_options.param_groups[0].options = nullptr;
    second.load_state_dict(without_options);
    CHECK(lr_of(second.param_groups()[0]) == 1.0);
  }
  CHECK(memory_allocated() == start);
}

TEST_CASE("load_state_dict refuses groups that do not match the optimizer's, with PyTorch's texts", "[optim][errors]") {
  Tensor a = leaf(1), b = leaf(2);
  optim::SGD one_group({a}, optim::SGDOptions(0.1));
  optim::SGD two_groups({optim::OptimizerParamGroup({a}), optim::OptimizerParamGroup({b})}, optim::SGDOptions(0.1));
  CHECK_THROWS_WITH(one_group.load_state_dict(two_groups.state_dict()), optim_refusal("a_saved_state_of_more_groups"));
  optim::SGD two_in_one({a, b}, optim::SGDOptions(0.1));
  CHECK_THROWS_WITH(one_group.load_state_dict(two_in_one.state_dict()), optim_refusal("a_saved_group_of_another_size"));
}

TEST_CASE("a group's params and options are reached as libtorch's, and options only once the group is held",
          "[optim][errors]") {
  optim::OptimizerParamGroup group({leaf(1)});
  CHECK_FALSE(group.has_options());
  CHECK_THROWS_WITH(group.options(), "Expected has_options() to be true, but got false.  (Could this error message "
                                     "be improved?  If so, please report an enhancement request to PyTorch.)");
  optim::AdamW adamw({group}, optim::AdamWOptions(0.3));
  CHECK(adamw.param_groups()[0].has_options());
  CHECK(static_cast<const optim::AdamWOptions&>(adamw.param_groups()[0].options()).weight_decay() == 1e-2);
  CHECK(static_cast<const optim::AdamWOptions&>(adamw.defaults()).lr() == 0.3);
}

DEVICE_TEST_CASE("a state loaded onto parameters on a device is moved there, the step count left on the CPU",
                 "[optim]") {
  Tensor on_cpu = ones({2}, Options().requires_grad());
  optim::Adam first({on_cpu}, optim::AdamOptions(0.1));
  on_cpu.sum().backward();
  first.step();
  Tensor on_device = on_cpu.detach().to(device).requires_grad_(true);
  optim::Adam second({on_device}, optim::AdamOptions(0.1));
  second.load_state_dict(first.state_dict());
  const auto& state = static_cast<const optim::AdamParamState&>(*second.state().at(on_device.impl()));
  CHECK(state.exp_avg().device() == device);
  CHECK(state.exp_avg_sq().device() == device);
  CHECK(state.step().device() == kCPU);  // PyTorch's load_state_dict leaves "step" as it was
  // Both take their second step from the same values and state: the same parameters.
  on_device.sum().backward();
  second.step();
  first.step();
  CHECK(state.step().item<float>() == 2.0f);
  CHECK(allclose(on_device.cpu(), on_cpu));
}
