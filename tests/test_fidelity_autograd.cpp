// Autograd where a differential fuzz against PyTorch 1.13 found ember silently different (issue
// 13): softmax handing out an internal view, gradients flowing through a view made under no_grad,
// a second backward through a freed graph going unnoticed, factories starting at version 1.
// Every expected value and text is PyTorch's (tests/fixtures/fidelity.json).
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "autograd/node.h"
#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;

namespace {

using UnaryFn = std::function<Tensor(const Tensor&)>;

const std::map<std::string, std::function<Tensor(const Tensor&, int64_t)>>& softmaxes() {
  static const std::map<std::string, std::function<Tensor(const Tensor&, int64_t)>> fns{
      {"softmax", [](const Tensor& x, int64_t dim) { return softmax(x, dim); }},
      {"log_softmax", [](const Tensor& x, int64_t dim) { return log_softmax(x, dim); }}};
  return fns;
}

}  // namespace

TEST_CASE("softmax and log_softmax return a fresh tensor that in-place ops may change", "[fidelity][autograd]") {
  for (const auto& [name, fn] : softmaxes()) {
    INFO(name);
    Tensor x = randn({2, 3}, Options().requires_grad());
    Tensor y = fn(x, 1);
    REQUIRE_NOTHROW(y.fill_(2.5));  // was "a view of a leaf Variable that requires grad ..."
    CHECK(y.grad_fn()->name() == case_named(name + "_result_takes_fill_")["grad_fn"].get<std::string>());
  }
}

TEST_CASE("a softmax result changed under no_grad is caught at backward", "[fidelity][autograd][version]") {
  for (const auto& [name, fn] : softmaxes()) {
    INFO(name);
    const auto& expected = case_named(name + "_result_changed_under_no_grad");
    Tensor x = randn({2, 3}, Options().requires_grad());
    Tensor y = fn(x, 1);
    {
      NoGradGuard no_grad;
      y.mul_(0.5);
    }
    CHECK(y._version() == expected["version"].get<uint32_t>());
    CHECK_THROWS_WITH(y.sum().backward(), expected["message"].get<std::string>());  // was: no gradient, no error
  }
}

TEST_CASE("softmax over a dim that is not the last returns a contiguous tensor", "[fidelity][layout]") {
  for (const auto& [name, fn] : softmaxes()) {
    INFO(name);
    Tensor y = fn(randn({2, 3}), 0);
    CHECK(y.strides() == fidelity::dims_of(case_named(name + "_over_first_dim_layout")["strides"]));
  }
}

TEST_CASE("softmax of an empty integer tensor is empty, of a non-empty one names PyTorch's kernel", "[fidelity]") {
  for (const auto& [name, fn] : softmaxes()) {
    for (const auto& [shape, dim] : std::vector<std::pair<Dims, int64_t>>{{{0}, 0}, {{2, 0}, 1}, {{2, 0}, 0}}) {
      const auto& expected = case_named(name + "_empty_int64_" + join_x(shape) + "_dim" + std::to_string(dim));
      Tensor y = fn(zeros(shape, kInt64), dim);  // was "not implemented for 'Long'"
      CHECK(y.sizes() == fidelity::dims_of(expected["shape"]));
      CHECK(y.dtype() == fixture::parse_dtype(expected["dtype"]));
    }
    for (const auto& [shape, dim] :
         std::vector<std::pair<Dims, int64_t>>{{{2, 3}, 0}, {{2, 3}, 1}, {{3}, 0}, {Dims{}, 0}}) {
      const std::string shape_name = shape.empty() ? "scalar" : join_x(shape);
      CHECK_THROWS_WITH(
          fn(ones(shape, kInt64), dim),
          case_named(name + "_int64_" + shape_name + "_dim" + std::to_string(dim))["message"].get<std::string>());
    }
    CHECK_THROWS_WITH(fn(ones({2}, kInt64), 3), case_named(name + "_int64_bad_dim")["message"].get<std::string>());
  }
}

TEST_CASE("a view made under no_grad requires grad but passes no gradient to its base", "[fidelity][autograd]") {
  for (const std::string base_kind : {"leaf", "result"}) {
    INFO(base_kind);
    const auto& expected = case_named("no_grad_view_of_" + base_kind);
    Tensor x = ones({2}, Options().requires_grad());
    Tensor base = base_kind == "leaf" ? x : x * 2;
    Tensor view;
    {
      NoGradGuard no_grad;
      view = base.view({2});
    }
    Tensor s = (view * 3).sum();
    s.backward();
    CHECK(view.requires_grad() == expected["requires_grad"].get<bool>());
    CHECK((view.grad_fn() != nullptr) == expected["has_grad_fn"].get<bool>());
    CHECK(view.is_leaf() == expected["is_leaf"].get<bool>());
    CHECK(s.requires_grad() == expected["sum_requires_grad"].get<bool>());
    CHECK(x.grad().defined() == expected["base_grad_defined"].get<bool>());  // was: a gradient of 3s
    CHECK_THROWS_WITH(view.backward(ones({2})), expected["backward_on_view"].get<std::string>());
  }
}

namespace {
// A view of x * 2 made under `Guard` (NoGradGuard or InferenceMode), after which its base is
// changed in place, under the guard or after it.
template <typename Guard>
Tensor view_of_changed_base(const Tensor& x, bool change_under_guard) {
  Tensor base = x * 2;
  Tensor view;
  {
    Guard guard;
    view = base.view({2});
    if (change_under_guard) base.mul_(2);
  }
  if (!change_under_guard) base.mul_(2);
  return view;
}
}  // namespace

TEST_CASE("a view made under no_grad or inference mode gets no new history from an in-place change of its base",
          "[fidelity][autograd][modes]") {
  Tensor x = ones({2}, Options().requires_grad());
  CHECK_THROWS_WITH(view_of_changed_base<NoGradGuard>(x, false).grad_fn(),
                    case_named("no_grad_view_base_changed_in_place")["message"].get<std::string>());
  CHECK_THROWS_WITH(view_of_changed_base<NoGradGuard>(x, true).grad_fn(),
                    case_named("no_grad_view_base_changed_under_no_grad")["message"].get<std::string>());
  CHECK_THROWS_WITH(view_of_changed_base<InferenceMode>(x, false).grad_fn(),
                    case_named("inference_view_base_changed_in_place")["message"].get<std::string>());
}

TEST_CASE("a second backward through a freed graph fails exactly where PyTorch's does", "[fidelity][autograd]") {
  const Tensor two_three = tensor({2.0, 3.0});
  const std::map<std::string, UnaryFn> ops{
      {"add_number", [](const Tensor& x) { return wrapped_number::add(x, 1); }},
      {"rsub_number", [](const Tensor& x) { return rsub(x, 1); }},
      {"mul_number", [](const Tensor& x) { return wrapped_number::mul(x, 2); }},
      {"mul_tensor", [&](const Tensor& x) { return x * two_three; }},
      {"div_number", [](const Tensor& x) { return wrapped_number::div(x, 2); }},
      {"div_by_x", [&](const Tensor& x) { return two_three / x; }},
      {"pow_0", [](const Tensor& x) { return x.pow(0); }},
      {"pow_2", [](const Tensor& x) { return x.pow(2); }},
      {"sqrt", [](const Tensor& x) { return x.sqrt(); }},
      {"exp", [](const Tensor& x) { return x.exp(); }},
      {"log", [](const Tensor& x) { return x.log(); }},
      {"relu", [](const Tensor& x) { return x.relu(); }},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); }},
      {"tanh", [](const Tensor& x) { return x.tanh(); }},
      {"sum", [](const Tensor& x) { return x.sum(); }},
      {"mean", [](const Tensor& x) { return x.mean(); }},
      {"max", [](const Tensor& x) { return x.max(); }},
      {"max_dim", [](const Tensor& x) { return max(x, 0).values; }},
      {"where", [](const Tensor& x) { return where(gt(x, 1.6), x, x * 0); }},
      {"softmax", [](const Tensor& x) { return softmax(x, 0); }},
      {"log_softmax", [](const Tensor& x) { return log_softmax(x, 0); }},
      {"mse_loss", [](const Tensor& x) { return mse_loss(x, ones({2})); }},
      {"cross_entropy",
       [](const Tensor& x) {
         return cross_entropy(x.view({1, 2}), from_vector<int64_t>({1}, {1}));
       }},
      {"mm",
       [](const Tensor& x) {
         return x.view({1, 2}).mm(ones({2, 2}));
       }},
      {"dot", [](const Tensor& x) { return x.matmul(ones({2})); }},
      {"mv",
       [](const Tensor& x) {
         return ones({2, 2}).matmul(x);
       }},
      {"linear",
       [](const Tensor& x) {
         return linear(x, ones({3, 2}), ones({3}));
       }},
      {"layer_norm", [](const Tensor& x) { return layer_norm(x, {2}); }},
  };
  const auto cases = fidelity::cases_starting("second_backward_");
  REQUIRE(cases.size() == ops.size());
  for (const auto& c : cases) {
    const std::string op = c["name"].get<std::string>().substr(std::string("second_backward_").size());
    INFO(op);
    REQUIRE(ops.count(op) == 1);
    Tensor x = tensor({1.5, 2.0}, Options().requires_grad());
    Tensor y = ops.at(op)(x);
    y.sum().backward();
    if (c["message"].is_null()) CHECK_NOTHROW(y.sum().backward());
    else CHECK_THROWS_WITH(y.sum().backward(), c["message"].get<std::string>());
  }
}

TEST_CASE("in-place ops record the nodes PyTorch records, under PyTorch's names", "[fidelity][autograd]") {
  const std::map<std::string, std::function<void(Tensor&)>> ops{
      {"fill_", [](Tensor& y) { y.fill_(2.0); }},
      {"zero_", [](Tensor& y) { y.zero_(); }},
      {"add_", [](Tensor& y) { wrapped_number::add_(y, 1); }},  // Python's numbers: AddBackward0
      {"mul_", [](Tensor& y) { wrapped_number::mul_(y, 2); }},
      {"div_", [](Tensor& y) { wrapped_number::div_(y, 2); }},
      {"sub_", [](Tensor& y) { wrapped_number::sub_(y, 2); }},
      {"copy_", [](Tensor& y) { y.copy_(ones({3})); }},
      {"normal_", [](Tensor& y) { normal_(y); }},
      {"uniform_", [](Tensor& y) { uniform_(y); }},
      {"bernoulli_", [](Tensor& y) { bernoulli_(y); }},
      {"random_", [](Tensor& y) { random_(y, 0, 3); }},
  };
  const auto& names = case_named("inplace_node_names")["names"];
  REQUIRE(names.size() == ops.size());
  for (const auto& [op, fn] : ops) {
    INFO(op);
    Tensor y = ones({3}, Options().requires_grad()) * 1;
    fn(y);
    CHECK(y.grad_fn()->name() == names.at(op).get<std::string>());
  }
}

TEST_CASE("every factory returns a tensor at version 0", "[fidelity][version]") {
  const Tensor t = ones({3});
  const std::map<std::string, std::function<Tensor()>> factories{
      {"empty", [] { return empty({3}); }},
      {"zeros", [] { return zeros({3}); }},
      {"ones", [] { return ones({3}); }},
      {"full", [] { return full({3}, 2.0); }},
      {"arange", [] { return arange(3); }},
      {"eye", [] { return eye(3); }},
      {"tensor",
       [] {
         return tensor({1.0, 2.0});
       }},
      {"scalar_tensor", [] { return scalar_tensor(1.0); }},
      {"zeros_like", [&] { return zeros_like(t); }},
      {"ones_like", [&] { return ones_like(t); }},
      {"empty_like", [&] { return empty_like(t); }},
      {"rand", [] { return rand({3}); }},
      {"randn", [] { return randn({3}); }},
      {"randint", [] { return randint(0, 5, {3}); }},
      {"randperm", [] { return randperm(4); }},
      {"bernoulli", [] { return bernoulli(full({3}, 0.5)); }},
  };
  const auto& versions = case_named("factory_versions")["versions"];
  REQUIRE(versions.size() == factories.size());
  for (const auto& [name, make] : factories) {
    INFO(name);
    CHECK(make()._version() == versions.at(name).get<uint32_t>());  // rand/randn/randint/ones_like were at 1
  }
}

TEST_CASE("full without a dtype takes it from the fill value: bool, int64 or float32", "[fidelity][factory]") {
  const auto& c = case_named("full_infers_its_dtype");
  CHECK(fixture::compare_exact(full({2}, 7), c["values"]["int"]) == "");  // was float32
  CHECK(fixture::compare_exact(full({2}, true), c["values"]["bool"]) == "");
  CHECK(fixture::compare_exact(full({2}, 7.0), c["values"]["float"]) == "");
  CHECK(full({2}, 7, kFloat64).dtype() == kFloat64);  // a dtype asked for wins
  CHECK_THROWS_WITH(full({2}, 7, Options().requires_grad()), c["int_requires_grad"].get<std::string>());
}
