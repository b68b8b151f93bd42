// The uses of saved-tensor hooks that are refused: each raises PyTorch 1.13's text
// (tests/fixtures/saved_hooks.json's "errors", tools/fixtures/saved_hooks.py), or ember's own where
// PyTorch has no such call (a missing pack or unpack hook). What the hooks do when used rightly:
// test_saved_tensors_hooks.cpp.
#include <catch2/catch.hpp>

#include <any>
#include <string>

#include "saved_hooks_fixture.h"

using namespace ember;
using autograd::saved_tensors_hooks;
using saved_hooks_fixture::hooks_fixture;
using saved_hooks_fixture::values;

namespace {

std::string torch_text(const std::string& name) { return hooks_fixture()["errors"][name].get<std::string>(); }

}  // namespace

TEST_CASE("backward twice through a graph saved with hooks raises PyTorch's error", "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y;
  {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t; },
                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
    y = (a * a).sum();
  }
  y.backward();
  CHECK_THROWS_WITH(y.backward(), torch_text("backward_twice"));
}

TEST_CASE("registering hooks twice on one saved tensor raises PyTorch's error", "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y = a * a;
  auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
  auto pack = [](const Tensor& t) -> std::any { return t; };
  auto unpack = [](const std::any& packed) { return std::any_cast<Tensor>(packed); };
  saved_self.register_hooks(pack, unpack);
  CHECK_THROWS_WITH(saved_self.register_hooks(pack, unpack), torch_text("register_twice"));
}

TEST_CASE("registering hooks on a freed saved tensor raises PyTorch's error", "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y = a * a;
  y.sum().backward();
  auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
  CHECK_THROWS_WITH(saved_self.register_hooks([](const Tensor& t) -> std::any { return t; },
                                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); }),
                    torch_text("register_after_free"));
}

TEST_CASE("registering hooks on a tensor the node did not save raises PyTorch's error",
          "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y = a * ones({3});  // self is kept only for other's gradient, which is not wanted
  auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
  CHECK_THROWS_WITH(saved_self.register_hooks([](const Tensor& t) -> std::any { return t; },
                                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); }),
                    torch_text("register_on_none"));
}

TEST_CASE("an unpack hook that returns no tensor raises PyTorch's error", "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y;
  {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t; }, [](const std::any&) { return Tensor(); });
    y = (a * a).sum();
  }
  CHECK_THROWS_WITH(y.backward(), torch_text("unpack_returns_none"));
}

TEST_CASE("a pack hook that changes its input in place raises PyTorch's error", "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor b = a * 1;
  saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return Tensor(t).mul_(2); },
                            [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
  CHECK_THROWS_WITH(b * b, torch_text("pack_modifies_input"));
}

TEST_CASE("a pack hook registered on one saved tensor that changes its input in place raises PyTorch's error",
          "[autograd-view][saved-hooks]") {
  Tensor a = values({1, 2, 3});
  Tensor y = a * a;
  auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
  CHECK_THROWS_WITH(saved_self.register_hooks([](const Tensor& t) -> std::any { return Tensor(t).mul_(2); },
                                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); }),
                    torch_text("pack_modifies_input"));
  CHECK_FALSE(saved_self.has_hooks());  // the refused hooks are not kept; the tensor still is
}

TEST_CASE("hooks entered while disabled raise the disabling message", "[autograd-view][saved-hooks]") {
  autograd::disable_saved_tensors_hooks off("saved tensors hooks are off here");
  auto make_hooks = [] {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t; },
                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
  };
  CHECK_THROWS_WITH(make_hooks(), torch_text("hooks_while_disabled"));
}

TEST_CASE("disabling hooks while hooks are active raises the disabling message, and leaves them enabled",
          "[autograd-view][saved-hooks]") {
  {
    saved_tensors_hooks hooks([](const Tensor& t) -> std::any { return t; },
                              [](const std::any& packed) { return std::any_cast<Tensor>(packed); });
    CHECK_THROWS_WITH(autograd::disable_saved_tensors_hooks("saved tensors hooks are off here"),
                      torch_text("disable_while_hooks"));
  }
  CHECK_NOTHROW(saved_tensors_hooks([](const Tensor& t) -> std::any { return t; },
                                    [](const std::any& packed) { return std::any_cast<Tensor>(packed); }));
}

TEST_CASE("hooks without a pack or an unpack function are refused", "[autograd-view][saved-hooks]") {
  CHECK_THROWS_WITH(saved_tensors_hooks(nullptr, [](const std::any& packed) { return std::any_cast<Tensor>(packed); }),
                    "saved_tensors_hooks: both a pack and an unpack hook are needed");
  Tensor a = values({1, 2, 3});
  Tensor y = a * a;
  auto& saved_self = std::get<autograd::MulBackward0>(y.grad_fn()->fn).self;
  CHECK_THROWS_WITH(saved_self.register_hooks([](const Tensor& t) -> std::any { return t; }, nullptr),
                    "register_hooks: both a pack and an unpack hook are needed");
}
