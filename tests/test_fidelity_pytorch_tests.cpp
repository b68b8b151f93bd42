// What running PyTorch's own test_autograd.py against ember found (issue 35), from C++: the two
// engine differences (`x.data = y` kept x's version counter from x's views; a view of an inference
// tensor recorded a node) and the texts of what the tests reached that ember lacked: custom
// Functions (libtorch's torch::autograd::Function<T>), in-place ops on multi-output views, hooks that
// change a gradient. Every expected value and text is PyTorch's (tests/fixtures/fidelity.json,
// tools/fixtures/fidelity_pytorch_tests.py); the C++ classes have the Python classes' names, so
// their nodes' names match.
#include <catch2/catch.hpp>

#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;
using fidelity::message;

namespace {

// libtorch names a C++ hook by its place among the tensor's hooks, torch a Python one by its name.
std::string with_hook_named(std::string text, const std::string& python_name, const std::string& cpp_name) {
  const std::string quoted = "'" + python_name + "'";
  return text.replace(text.find(quoted), quoted.size(), "'" + cpp_name + "'");
}

struct Scale : autograd::Function<Scale> {  // backward returns one gradient for two inputs
  static Tensor forward(autograd::AutogradContext*, const Tensor& x, const Tensor& y) { return x * y; }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const std::vector<Tensor>& grads) { return grads; }
};

struct WrongShape : autograd::Function<WrongShape> {  // backward returns a [3] gradient for a [2] input
  static Tensor forward(autograd::AutogradContext*, const Tensor& x) { return x * 2; }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const std::vector<Tensor>&) { return {ones({3})}; }
};

struct Identity : autograd::Function<Identity> {  // returns a view of its input
  static Tensor forward(autograd::AutogradContext*, const Tensor& x) { return x.view_as(x); }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const std::vector<Tensor>& grads) { return grads; }
};

struct DoubleInPlace : autograd::Function<DoubleInPlace> {  // doubles its input in place, saying so
  static Tensor forward(autograd::AutogradContext* ctx, Tensor x) {
    ctx->mark_dirty({x});
    return x.mul_(2);
  }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const std::vector<Tensor>& grads) {
    return {grads[0] * 2};
  }
};

}  // namespace

TEST_CASE("assigning .data keeps the tensor's version counter, shared with its views", "[fidelity][version]") {
  const auto& expected = case_named("data_assignment_keeps_the_version");
  Tensor x = ones({3});
  Tensor view = x.slice(0, 1, 3);
  x.add_(1);
  x.add_(1);
  CHECK(x._version() == expected["version_before"].get<uint32_t>());
  x.set_data(zeros({3}));
  CHECK(x._version() == expected["version_after"].get<uint32_t>());
  view.add_(1);  // x's counter still, though no longer x's storage
  CHECK(x._version() == expected["version_after_view_add_"].get<uint32_t>());
  CHECK(view._version() == expected["view_version"].get<uint32_t>());
  CHECK(x.to_vector<float>() == expected["values"].get<std::vector<float>>());
  CHECK(view.to_vector<float>() == expected["view_values"].get<std::vector<float>>());
}

TEST_CASE("a change through a view after assigning .data is caught by the saved-tensor check", "[fidelity][version]") {
  const auto& expected = case_named("data_assignment_then_view_change_is_caught");
  Tensor w = ones({3}, Options().requires_grad());
  Tensor h = wrapped_number::mul(w, 1);  // Python's `w * 1`
  Tensor view = h.slice(0, 1, 3);
  Tensor y = h * h;
  h.set_data(full({3}, 2.0));
  {
    NoGradGuard no_grad;
    view.mul_(2);
  }
  CHECK(h._version() == expected["version"].get<uint32_t>());
  CHECK_THROWS_WITH(y.sum().backward(), expected["message"].get<std::string>());
}

TEST_CASE("a view of an inference tensor made outside inference mode is an inference tensor without a node",
          "[fidelity][inference]") {
  const auto& expected = case_named("inference_tensor_viewed_outside");
  Tensor x;
  {
    InferenceMode inference;
    x = ones({2, 3}, Options().requires_grad());
  }
  CHECK(x.requires_grad() == expected["x_requires_grad"].get<bool>());
  for (const Tensor& v : {x.view({6}), x.t()}) {
    CHECK(v.is_inference() == expected["is_inference"].get<bool>());
    CHECK(v.requires_grad() == expected["requires_grad"].get<bool>());
    CHECK((v.grad_fn() != nullptr) == expected["has_grad_fn"].get<bool>());
    CHECK(v._is_view() == expected["is_view"].get<bool>());
  }
}

TEST_CASE("a custom Function's backward must return one gradient per input of forward", "[fidelity][function]") {
  Tensor y = Scale::apply(ones({2}, Options().requires_grad()), ones({2}));
  CHECK_THROWS_WITH(y.sum().backward(), message("function_too_few_gradients"));
}

TEST_CASE("a custom Function's gradient must fit its input's shape", "[fidelity][function]") {
  Tensor y = WrongShape::apply(ones({2}, Options().requires_grad()));
  CHECK_THROWS_WITH(y.sum().backward(), message("function_gradient_of_wrong_shape"));
}

TEST_CASE("a view a custom Function returns may not be modified in place", "[fidelity][function][view]") {
  Tensor view = Identity::apply(ones({2}, Options().requires_grad()) * 1);
  CHECK_THROWS_WITH(view.mul_(2), message("function_view_output_modified_in_place"));
}

TEST_CASE("a custom Function that modifies its input in place says so with mark_dirty", "[fidelity][function]") {
  CHECK_THROWS_WITH(DoubleInPlace::apply(ones({2}, Options().requires_grad())), message("function_dirty_leaf"));
  const auto& expected = case_named("function_dirty_input");
  Tensor leaf = ones({2}, Options().requires_grad());
  Tensor doubled = DoubleInPlace::apply(leaf * 1);
  CHECK(doubled.grad_fn()->name() == expected["grad_fn"].get<std::string>());
  doubled.sum().backward();
  CHECK(leaf.grad().to_vector<float>() == expected["grad"].get<std::vector<float>>());
}

TEST_CASE("the pieces of unbind, split and chunk may not be modified in place", "[fidelity][view]") {
  auto base = [] { return ones({2, 3}, Options().requires_grad()) * 2; };
  CHECK_THROWS_WITH(unbind(base(), 0)[0].mul_(2), message("unbind_piece_modified_in_place"));
  CHECK_THROWS_WITH(split(base(), 1)[0].mul_(2), message("split_piece_modified_in_place"));
  CHECK_THROWS_WITH(chunk(base(), 2)[0].mul_(2), message("chunk_piece_modified_in_place"));
}

TEST_CASE("the pieces of unsafe_split may be modified in place", "[fidelity][view]") {
  std::vector<Tensor> pieces = unsafe_split(wrapped_number::mul(ones({2, 3}, Options().requires_grad()), 2), 1);
  REQUIRE_NOTHROW(wrapped_number::mul_(pieces[0], 2));
  CHECK(pieces[0].grad_fn()->name() ==
        case_named("unsafe_split_piece_modified_in_place")["grad_fn"].get<std::string>());
}

TEST_CASE("an in-place view op on a leaf that requires grad is refused", "[fidelity][view]") {
  CHECK_THROWS_WITH(ones({2, 3}, Options().requires_grad()).t_(), message("transpose_in_place_on_leaf"));
}

TEST_CASE("a tensor hook may not change its gradient's size or type", "[fidelity][hooks]") {
  for (const auto& [name, python_name, hook] :
       {std::tuple{"hook_changes_size", "resized",
                   std::function<Tensor(const Tensor&)>([](const Tensor&) { return ones({3}); })},
        std::tuple{"hook_changes_type", "retyped",
                   std::function<Tensor(const Tensor&)>([](const Tensor& grad) { return grad.to(kFloat64); })}}) {
    INFO(name);
    Tensor y = ones({2}, Options().requires_grad()) * 2;
    y.register_hook([](const Tensor&) { return Tensor(); });  // hook '0' keeps the gradient
    y.register_hook(hook);
    CHECK_THROWS_WITH(y.sum().backward(), with_hook_named(message(name), python_name, "1"));
  }
}

TEST_CASE("a node hook must return one gradient per input", "[fidelity][hooks]") {
  Tensor y = wrapped_number::mul(ones({2}, Options().requires_grad()), 2);  // Python's MulBackward0, 2 inputs
  y.grad_fn()->register_hook(
      [](const std::vector<Tensor>&, const std::vector<Tensor>&) { return std::vector<Tensor>(3); });
  CHECK_THROWS_WITH(y.sum().backward(), with_hook_named(message("node_hook_returns_too_many"), "<lambda>", "0"));
}
