// Aliasing as PyTorch reports it: which tensors are views and of what (_is_view, _base), which
// share bytes (is_alias_of), and `.data()`, which shares the bytes but not the version counter,
// so a change through it slips past autograd where the same change through detach() is caught.
// The expected answers are PyTorch 1.13's for the same code.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

TEST_CASE("a view op's result is a view whose base is where the chain of views started", "[aliasing][views]") {
  Tensor x = arange(6.);
  CHECK_FALSE(x._is_view());
  CHECK_FALSE(x._base().defined());
  Tensor rows = x.view({2, 3});
  Tensor row = rows[1];
  CHECK(rows._is_view());
  CHECK(row._is_view());
  CHECK(row._base().is_same(x));  // the root, not `rows`
  CHECK(x.reshape({3, 2})._base().is_same(x));
  CHECK(x.expand({2, 6})._is_view());
  CHECK(x.unsqueeze(0)._is_view());
  CHECK_FALSE(rows.t().reshape({6})._is_view());  // reshape had to copy
  CHECK_FALSE(x.contiguous()._is_view());         // x itself
  CHECK_FALSE(x.detach()._is_view());
  CHECK_FALSE(x.clone()._is_view());
}

TEST_CASE("a view made under no_grad is a view, and requires grad where its base does", "[aliasing][views]") {
  Tensor base = ones({3}, Options().requires_grad());
  Tensor view, view_of_plain;
  Tensor plain = ones({3});
  {
    NoGradGuard no_grad;
    view = base.view({3});
    view_of_plain = plain.view({3});
  }
  CHECK(view._is_view());
  CHECK(view._base().is_same(base));
  CHECK(view.requires_grad());
  // One of a tensor that needs no grad is a view too, as in PyTorch (an in-place op that would give
  // it a history is then refused: test_modes.cpp).
  CHECK(view_of_plain._is_view());
  CHECK(view_of_plain._base().is_same(plain));
  CHECK_FALSE(view_of_plain.requires_grad());
}

TEST_CASE("views of inference tensors are not views, but an inference-mode view of a normal tensor is",
          "[aliasing][views]") {
  Tensor normal = ones({3}, Options().requires_grad());
  Tensor inference, view_of_inference, view_of_normal;
  {
    InferenceMode guard;
    inference = ones({3});
    view_of_inference = inference.narrow(0, 0, 2);
    view_of_normal = normal.narrow(0, 0, 2);
  }
  CHECK_FALSE(view_of_inference._is_view());
  CHECK(view_of_normal._is_view());
  CHECK(view_of_normal._base().is_same(normal));
}

TEST_CASE("is_alias_of: views, detach() and data() share the bytes, a clone does not", "[aliasing]") {
  Tensor x = arange(4.);
  CHECK(x.is_alias_of(x));
  CHECK(x.narrow(0, 1, 2).is_alias_of(x));
  CHECK(x.is_alias_of(x[3]));
  CHECK(x.detach().is_alias_of(x));
  CHECK(x.data().is_alias_of(x));
  CHECK_FALSE(x.clone().is_alias_of(x));
  CHECK_FALSE(arange(4.).is_alias_of(x));
}

TEST_CASE("data() shares the bytes, records no history and requires no grad, with a fresh version counter",
          "[aliasing][autograd]") {
  Tensor w = ones({2}, Options().requires_grad());
  Tensor data = w.data();
  CHECK_FALSE(data.requires_grad());
  CHECK(data.is_leaf());
  CHECK(data.grad_fn() == nullptr);
  CHECK_FALSE(data._is_view());
  CHECK(data.raw_data() == w.raw_data());
  data.add_(1);  // no leaf check: data() is not the leaf that requires grad
  CHECK(w.tolist_str() == "[2.0, 2.0]");
  CHECK(data._version() == 1);
  CHECK(w._version() == 0);
  Tensor nonleaf = w * 1;
  CHECK_FALSE(nonleaf.data().requires_grad());
  CHECK(nonleaf.data().grad_fn() == nullptr);
  CHECK_FALSE(nonleaf[0].data()._is_view());
}

TEST_CASE("a change through data() slips past autograd's version check, where a change through detach() is caught",
          "[aliasing][autograd]") {
  Tensor x = from_vector(std::vector<float>{0.5f, -1.0f}, {2}).requires_grad_();
  Tensor y = x.sigmoid();  // saves its result for backward
  y.detach().mul_(2);
  CHECK_THROWS_WITH(y.sum().backward(), Catch::Contains("which is output 0 of SigmoidBackward0, is at version 1; "
                                                        "expected version 0 instead"));

  Tensor x2 = from_vector(std::vector<float>{0.5f, -1.0f}, {2}).requires_grad_();
  Tensor y2 = x2.sigmoid();
  y2.data().mul_(2);
  CHECK(y2._version() == 0);
  y2.sum().backward();  // silently uses the changed values: y2 * (1 - y2), not sigmoid's derivative
  NoGradGuard no_grad;
  CHECK(equal(x2.grad(), y2 * (1 - y2)));
}

TEST_CASE("comparing with a number: t > 0 and 0 < t, element by element", "[aliasing][ops]") {
  Tensor t = arange(4.);
  CHECK((t > 1).tolist_str() == "[False, False, True, True]");
  CHECK(equal(1 < t, t > 1));
  CHECK((t == 2).tolist_str() == "[False, False, True, False]");
  CHECK(equal(2 == t, t == 2));
  CHECK((t != 2).tolist_str() == "[True, True, False, True]");
  CHECK(equal(2 != t, t != 2));
  CHECK((t <= 1).tolist_str() == "[True, True, False, False]");
  CHECK(equal(1 >= t, t <= 1));
  CHECK((t >= 2.5).tolist_str() == "[False, False, False, True]");
  CHECK(equal(2.5 <= t, t >= 2.5));
  CHECK(equal(1 > t, t < 1));
  CHECK((t > 1).dtype() == kBool);
  CHECK(equal(t > 1, gt(t, 1)));
}
