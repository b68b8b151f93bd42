// The optimizers against PyTorch's (tests/fixtures/optim.json, tools/fixtures/optim.py): a small MLP
// trained 10 steps by Adam, AdamW, their amsgrad variants and SGD then Adam, and by SGD, Adam and
// AdamW with two parameter groups or a learning rate changed between steps. Given PyTorch's
// gradients, every step must land on PyTorch's parameters bit for bit, also when a fresh optimizer
// given the first one's state_dict after three steps takes over. Trained end to end by ember, the
// run stays on PyTorch's within float32 rounding: ember's loss and gradients are not PyTorch's
// bits (its float32 sums add in another order), the steps it takes from them are. Also the rules
// every optimizer shares: PyTorch's refusals, zero_grad, versions.
#include <catch2/catch.hpp>

#include <map>
#include <memory>

#include "ember.h"
#include "fixture.h"

using namespace ember;
using fixture::json;
using fixture::torch_error;

namespace {

const char* const kNames[] = {"W1", "b1", "W2", "b2"};

// torch's keywords `o` as libtorch's options of the optimizer `name`.
std::unique_ptr<optim::OptimizerOptions> options_of(const std::string& name, const json& o) {
  const double lr = o["lr"];
  if (name == "SGD")
    return optim::SGDOptions(lr)
        .momentum(o.value("momentum", 0.0))
        .dampening(o.value("dampening", 0.0))
        .weight_decay(o.value("weight_decay", 0.0))
        .nesterov(o.value("nesterov", false))
        .clone();
  const std::array<double, 2> betas =
      o.contains("betas") ? o["betas"].get<std::array<double, 2>>() : std::array<double, 2>{0.9, 0.999};
  if (name == "Adam")
    return optim::AdamOptions(lr)
        .betas(betas)
        .eps(o.value("eps", 1e-8))
        .weight_decay(o.value("weight_decay", 0.0))
        .amsgrad(o.value("amsgrad", false))
        .maximize(o.value("maximize", false))
        .clone();
  REQUIRE(name == "AdamW");
  return optim::AdamWOptions(lr)
      .betas(betas)
      .eps(o.value("eps", 1e-8))
      .weight_decay(o.value("weight_decay", 1e-2))
      .amsgrad(o.value("amsgrad", false))
      .maximize(o.value("maximize", false))
      .clone();
}

// The optimizer a fixture phase names, over `parameters` (by name), in the phase's groups if it has
// them (each with its own options over the phase's), else in one group with the phase's options.
std::unique_ptr<optim::Optimizer> make_optimizer(const json& phase, const std::map<std::string, Tensor>& parameters) {
  const std::string name = phase["optimizer"];
  const json& o = phase["options"];
  std::vector<optim::OptimizerParamGroup> groups;
  if (phase.contains("groups")) {
    for (const json& group : phase["groups"]) {
      std::vector<Tensor> params;
      for (const std::string& p : group["params"]) params.push_back(parameters.at(p));
      json options = o;
      options.update(group["options"]);
      groups.emplace_back(params, options_of(name, options));
    }
  } else {
    groups.emplace_back(
        std::vector<Tensor>{parameters.at("W1"), parameters.at("b1"), parameters.at("W2"), parameters.at("b2")});
  }
  const std::unique_ptr<optim::OptimizerOptions> defaults = options_of(name, o);
  if (name == "SGD") return std::make_unique<optim::SGD>(groups, static_cast<optim::SGDOptions&>(*defaults));
  if (name == "Adam") return std::make_unique<optim::Adam>(groups, static_cast<optim::AdamOptions&>(*defaults));
  return std::make_unique<optim::AdamW>(groups, static_cast<optim::AdamWOptions&>(*defaults));
}

// Sets every group's learning rate where the phase changes it before step `step`, as torch's
// `for group in optimizer.param_groups: group['lr'] = lr`.
void change_lr(const json& phase, int step, optim::Optimizer& optimizer) {
  if (!phase.contains("lr_changes") || !phase["lr_changes"].contains(std::to_string(step))) return;
  for (optim::OptimizerParamGroup& group : optimizer.param_groups())
    group.options().set_lr(phase["lr_changes"][std::to_string(step)].get<double>());
}

struct FixtureMlp {
  Tensor x, target;
  std::map<std::string, Tensor> p;
  explicit FixtureMlp(const json& f) : x(fixture::make(f["x"])), target(fixture::make(f["target"])) {
    for (const char* name : kNames) p[name] = fixture::make(f[name], /*requires_grad=*/true);
  }
  Tensor loss() const {
    return mse_loss(linear(relu(linear(x, p.at("W1"), p.at("b1"))), p.at("W2"), p.at("b2")), target);
  }
};

// Runs every phase of a fixture run. With PyTorch's gradients each step is given PyTorch's recorded
// gradients and must give its parameters exactly; otherwise ember computes them (forward and
// backward) and every value is compared within float32's tolerance. Interrupted, each phase's
// optimizer is replaced after its third step by a fresh one given its state_dict, which must
// continue the same run. Returns how many steps it ran.
enum class Gradients { PyTorchs, Embers };
enum class Interrupted { No, AfterThreeSteps };
int replay_run(const json& run, Gradients gradients, Interrupted interrupted = Interrupted::No) {
  FixtureMlp mlp(fixture::load("optim.json"));
  const bool exact = gradients == Gradients::PyTorchs;
  auto compare = [&](const Tensor& t, const json& expected) {
    return exact ? fixture::compare_exact(t, expected) : fixture::compare(t, expected);
  };
  int compared = 0;
  for (const json& phase : run["phases"]) {
    std::unique_ptr<optim::Optimizer> optimizer = make_optimizer(phase, mlp.p);
    for (int i = 0; i < static_cast<int>(phase["steps"].size()); ++i) {
      const json& step = phase["steps"][i];
      INFO(phase["optimizer"].get<std::string>() << " step " << compared);
      change_lr(phase, i, *optimizer);
      if (interrupted == Interrupted::AfterThreeSteps && i == 3) {
        const optim::OptimizerStateDict saved = optimizer->state_dict();
        optimizer = make_optimizer(phase, mlp.p);
        optimizer->load_state_dict(saved);
      }
      optimizer->zero_grad();
      if (exact) {
        for (const char* name : kNames) mlp.p[name].mutable_grad() = fixture::make(step["grads"][name]);
      } else {
        const Tensor loss = mlp.loss();
        CHECK(compare(loss, step["loss"]) == "");
        loss.backward();
        for (const char* name : kNames) CHECK(compare(mlp.p[name].grad(), step["grads"][name]) == "");
      }
      optimizer->step();
      for (const char* name : kNames) {
        INFO("parameter " << name);
        CHECK(compare(mlp.p[name], step["params"][name]) == "");
      }
      ++compared;
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("Adam, AdamW, amsgrad and SGD then Adam step to PyTorch's parameters bit for bit, given its gradients",
          "[optim]") {
  const json& runs = fixture::load("optim.json")["runs"];
  REQUIRE(runs.size() >= 5);
  for (const json& run : runs) {
    INFO("run " << run["name"].get<std::string>());
    CHECK(replay_run(run, Gradients::PyTorchs) >= 10);
  }
}

TEST_CASE("an optimizer given another's state_dict after three steps continues PyTorch's run bit for bit", "[optim]") {
  for (const json& run : fixture::load("optim.json")["runs"]) {
    INFO("run " << run["name"].get<std::string>());
    CHECK(replay_run(run, Gradients::PyTorchs, Interrupted::AfterThreeSteps) >= 10);
  }
}

TEST_CASE("an MLP trained by ember with Adam, AdamW or SGD then Adam follows PyTorch's run", "[optim]") {
  for (const json& run : fixture::load("optim.json")["runs"]) {
    INFO("run " << run["name"].get<std::string>());
    CHECK(replay_run(run, Gradients::Embers) >= 10);
  }
}

TEST_CASE("Adam keeps its state per parameter: a float32 step count on the CPU and moments like the parameter",
          "[optim]") {
  const int64_t start = memory_allocated();
  {
    Tensor p = ones({3}, Options().requires_grad()), unused = ones({2}, Options().requires_grad());
    optim::Adam adam({p, unused}, optim::AdamOptions(0.1).amsgrad(true));
    (p * p).sum().backward();
    adam.step();
    adam.step();
    const auto& state = static_cast<const optim::AdamParamState&>(*adam.state().at(p.impl()));
    CHECK(state.step().dtype() == kFloat32);
    CHECK(state.step().dim() == 0);
    CHECK(state.step().item<float>() == 2.0f);
    CHECK(state.exp_avg().sizes() == p.sizes());
    CHECK(state.max_exp_avg_sq().sizes() == p.sizes());
    CHECK_FALSE(state.exp_avg().requires_grad());
    CHECK(adam.state().count(unused.impl()) == 0);  // no gradient, no step, no state
    CHECK(p._version() == 2);                       // one addcdiv_ per step
    CHECK(p.is_leaf());
  }
  CHECK(memory_allocated() == start);
}

TEST_CASE("AdamW shrinks the parameter before its update, even with no weight decay to apply", "[optim]") {
  Tensor p = full({2}, 2.0, Options().requires_grad());
  optim::AdamW adamw({p}, optim::AdamWOptions(0.5).weight_decay(0.0));
  p.sum().backward();
  adamw.step();
  CHECK(p._version() == 2);  // mul_(1 - lr * weight_decay), then addcdiv_, as in PyTorch
  // The first Adam step moves each parameter by lr against its gradient's sign (m / sqrt(v) = 1).
  CHECK(allclose(p, full({2}, 1.5)));
}

TEST_CASE("every optimizer refuses an empty parameter list and bad options with PyTorch's texts", "[optim][errors]") {
  Tensor x = ones({1}, Options().requires_grad());
  CHECK_THROWS_WITH(optim::SGD(std::vector<Tensor>{}, optim::SGDOptions(0.1)), torch_error("sgd_empty_parameters"));
  CHECK_THROWS_WITH(optim::Adam(std::vector<Tensor>{}), torch_error("adam_empty_parameters"));
  CHECK_THROWS_WITH(optim::AdamW(std::vector<Tensor>{}), torch_error("adamw_empty_parameters"));
  CHECK_THROWS_WITH(optim::Adam({x}, optim::AdamOptions(-1)), torch_error("adam_invalid_lr"));
  CHECK_THROWS_WITH(optim::Adam(std::vector<Tensor>{}, optim::AdamOptions(-1)),
                    torch_error("adam_invalid_lr"));  // options first, as in PyTorch
  CHECK_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().eps(-1)), torch_error("adam_invalid_eps"));
  CHECK_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().betas({1, 0.999})), torch_error("adam_invalid_beta0"));
  CHECK_THROWS_WITH(optim::Adam({x}, optim::AdamOptions().betas({0.9, -1})), torch_error("adam_invalid_beta1"));
  CHECK_THROWS_WITH(optim::AdamW({x}, optim::AdamWOptions().weight_decay(-1)),
                    torch_error("adamw_invalid_weight_decay"));
  CHECK_THROWS_WITH(optim::Adam({x * 2}), torch_error("adam_non_leaf"));
}

TEST_CASE("zero_grad zeroes or drops the gradients of any optimizer's parameters", "[optim]") {
  Tensor p = ones({2}, Options().requires_grad());
  optim::Adam adam({p});
  optim::Optimizer& optimizer = adam;
  (p * 3).sum().backward();
  optimizer.zero_grad();
  CHECK(p.grad().tolist_str() == "[0.0, 0.0]");
  optimizer.zero_grad(/*set_to_none=*/true);
  CHECK_FALSE(p.grad().defined());
  optimizer.step();  // nothing to do without gradients
  CHECK(p._version() == 0);
}
