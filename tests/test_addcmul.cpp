// addcmul and addcdiv beyond what the op fixtures compare (tests/fixtures/ops.json holds their
// values and gradients): PyTorch's kernel computes `self + value * t1 * t2` with one fused
// multiply-add, so ember's must round alike for its optimizers to land on PyTorch's bits
// (tests/test_optim.cpp); the in-place forms, and the node they record.
#include <catch2/catch.hpp>

#include <cmath>

#include "ember.h"

using namespace ember;

TEST_CASE("addcmul_ and addcdiv_ write what addcmul and addcdiv return, in place", "[ops]") {
  manual_seed(4);
  const Tensor s = randn({3, 1003}), t1 = randn({1003}), t2 = rand({3, 1}) + 0.5;
  Tensor in_place = s.clone();
  in_place.addcmul_(t1, t2, 0.7);
  CHECK(equal(in_place, addcmul(s, t1, t2, 0.7)));
  CHECK(equal(in_place, s.addcmul(t1, t2, 0.7)));
  CHECK(in_place._version() == 1);
  in_place.addcdiv_(t1, t2, -0.2);
  CHECK(equal(in_place, addcdiv(addcmul(s, t1, t2, 0.7), t1, t2, -0.2)));
  CHECK(in_place._version() == 2);
  // Each element as PyTorch's kernels compute it.
  const std::vector<float> self = s.to_vector<float>(), a = t1.to_vector<float>(), b = t2.to_vector<float>();
  const std::vector<float> product = addcmul(s, t1, t2, 0.7).to_vector<float>();
  const std::vector<float> quotient = addcdiv(s, t1, t2, -0.2).to_vector<float>();
  for (size_t i = 0; i < self.size(); ++i) {
    INFO("element " << i);
    const float x = a[i % 1003], y = b[i / 1003];
    REQUIRE(product[i] == std::fma(0.7f * x, y, self[i]));
    REQUIRE(quotient[i] == self[i] + -0.2f * x / y);
  }
}

TEST_CASE("addcmul_ on a tensor that requires grad records AddcmulBackward0 with addcmul's gradients", "[autograd]") {
  Tensor a = randn({4}, Options().requires_grad()), b = randn({4}, Options().requires_grad());
  Tensor c = randn({4}, Options().requires_grad());
  Tensor y = a * 1;
  y.addcmul_(b, c, 2.0);
  CHECK(y.grad_fn()->name() == "AddcmulBackward0");
  y.sum().backward();
  const Tensor ga = a.grad(), gb = b.grad(), gc = c.grad();
  for (Tensor* t : {&a, &b, &c}) t->mutable_grad() = Tensor();
  addcmul(a, b, c, 2.0).sum().backward();
  CHECK(equal(ga, a.grad()));
  CHECK(equal(gb, b.grad()));
  CHECK(equal(gc, c.grad()));
  Tensor z = a * 1;
  z.addcdiv_(b, c.detach().abs() + 1);
  CHECK(z.grad_fn()->name() == "AddcdivBackward0");
}

TEST_CASE("addcmul_ of a tensor with itself refuses to differentiate through the overwritten value", "[autograd]") {
  // tensor1 is self and is needed (tensor2 requires grad): saved as the node's output, the write
  // makes backward fail as PyTorch's does, instead of using the new value.
  Tensor a = randn({3}, Options().requires_grad());
  Tensor y = a * 1;
  y.addcmul_(y, a);
  CHECK_THROWS_WITH(y.sum().backward(),
                    Catch::Contains("modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of "
                                    "AddcmulBackward0, is at version 1; expected version 0 instead."));
}

TEST_CASE("addcdiv by an integer tensor2 gives tensor1 the gradient value / tensor2", "[autograd]") {
  // PyTorch 1.13 raises in this backward ("result type Float can't be cast to the desired output
  // type Long", from its Scalar / Tensor); ember gives the gradient.
  Tensor self = zeros({3}, Options().requires_grad()), t1 = ones({3}, Options().requires_grad());
  addcdiv(self, t1, from_vector<int64_t>({1, 2, 4}, {3}), 1.5).sum().backward();
  CHECK(t1.grad().tolist_str() == "[1.5, 0.75, 0.375]");
}
