// In-place ops under autograd, by PyTorch's rules: a saved tensor changed in place is caught at
// backward by its version; an in-place op is refused on a leaf that requires grad and recorded on
// any other result; on a view it rewrites the base's history (CopySlices), which the base's other
// views then see; and a view made under no_grad may not be changed in place with grad mode on.
#include <catch2/catch.hpp>

#include "autograd_leaf.h"

using namespace ember;
using autograd_leaf::leaf;

TEST_CASE("an in-place change to a saved output is caught at backward", "[autograd][version]") {
  Tensor a = leaf({0, 1, 2}, {3});
  Tensor b = a.exp();
  b.add_(1);
  CHECK_THROWS_WITH(b.sum().backward(),
                    "one of the variables needed for gradient computation has been modified by an inplace operation: "
                    "[torch.FloatTensor [3]], which is output 0 of ExpBackward0, is at version 1; expected version 0 "
                    "instead. Hint: enable anomaly detection to find the operation that failed to compute its "
                    "gradient, with torch.autograd.set_detect_anomaly(True).");
}

TEST_CASE("an in-place change to a saved input without grad_fn omits the 'which is output' clause",
          "[autograd][version]") {
  Tensor w = leaf({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  Tensor x = ones({4, 2});
  Tensor y = (w * x).sum();
  x.mul_(2);
  CHECK_THROWS_WITH(y.backward(), "one of the variables needed for gradient computation has been modified by an "
                                  "inplace operation: [torch.FloatTensor [4, 2]] is at version 1; expected version 0 "
                                  "instead. Hint: enable anomaly detection to find the operation that failed to "
                                  "compute its gradient, with torch.autograd.set_detect_anomaly(True).");
}

TEST_CASE("in-place ops on leaves that require grad are refused while grad mode is on", "[autograd]") {
  Tensor w = leaf({1, 2, 3}, {3});
  CHECK_THROWS_WITH(w.add_(1), "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(w[0].mul_(2),
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  {
    NoGradGuard no_grad;  // what an optimizer step does
    w.sub_(1);
  }
  CHECK(w.tolist_str() == "[0.0, 1.0, 2.0]");
  CHECK(w._version() == 1);
}

TEST_CASE("in-place ops on non-leaf results are recorded and differentiated", "[autograd]") {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = x * 2;
  y.mul_(x);  // y = 2 x^2
  CHECK(y.grad_fn()->name() == "MulBackward0");
  y.sum().backward();
  CHECK(x.grad().tolist_str() == "[4.0, 8.0, 12.0]");
}

TEST_CASE("an in-place op on a view rewrites the base's history (CopySlices)", "[autograd][views]") {
  Tensor x = leaf({1, 2, 3, 4}, {2, 2});
  Tensor y = x * 1;
  Tensor row = y[0];
  row.mul_(10);
  CHECK(y.grad_fn()->name() == "torch::autograd::CopySlices");
  CHECK(row.grad_fn()->name() == "AsStridedBackward0");
  CHECK(y.tolist_str() == "[[10.0, 20.0], [3.0, 4.0]]");
  y.sum().backward();
  CHECK(x.grad().tolist_str() == "[[10.0, 10.0], [1.0, 1.0]]");
}

const char* const kNoGradViewError =
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked).";

TEST_CASE("a view made under no_grad cannot be modified in place with grad mode on", "[autograd][modes]") {
  Tensor x = ones({2, 2}, Options().requires_grad());
  Tensor y = x * 1;
  Tensor view;
  {
    NoGradGuard no_grad;
    view = y[0];
  }
  CHECK(view.requires_grad());
  CHECK_THROWS_WITH(view.mul_(2), kNoGradViewError);
}

TEST_CASE("nor can one of a tensor that needs no grad, by an in-place op that would give it a history",
          "[autograd][modes]") {
  Tensor plain = zeros({2, 3});
  Tensor w = ones({3, 2}, Options().requires_grad());
  Tensor view;
  {
    NoGradGuard no_grad;
    view = plain.t();
  }
  CHECK_THROWS_WITH(view.sub_(w), kNoGradViewError);  // PyTorch checks this before shapes and dtypes
  CHECK(plain.tolist_str() == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]");
  view.sub_(ones({3, 2}));  // nothing requires grad: no history to give, so it is allowed
  CHECK(plain.tolist_str() == "[[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]");
}

TEST_CASE("an op's result is not a view of the temporaries it was computed from", "[autograd][modes]") {
  Tensor v = ones({3}, Options().requires_grad());
  Tensor dot;
  {
    NoGradGuard no_grad;
    dot = matmul(v, v);  // computed as a [1, 1] product reshaped to 0-d, inside the op
  }
  CHECK_FALSE(dot._is_view());
  dot.mul_(v.sum());  // so an in-place op may give it a history
  CHECK(dot.grad_fn()->name() == "MulBackward0");
}

TEST_CASE("writing into a slice of a buffer that needs no grad makes the buffer part of the graph",
          "[autograd][views]") {
  Tensor w = leaf({5, 6}, {2});
  Tensor buffer = zeros({4});
  buffer.narrow(0, 1, 2).add_(w);
  CHECK(buffer.grad_fn()->name() == "torch::autograd::CopySlices");
  (buffer * tensor({1, 10, 100, 1000})).sum().backward();
  CHECK(w.grad().tolist_str() == "[10.0, 100.0]");
}

TEST_CASE("a sibling view sees an in-place change made through another view", "[autograd][views]") {
  Tensor x = leaf({1, 2, 3, 4}, {2, 2});
  Tensor w = leaf({2, 2}, {2});
  Tensor y = x * 1;
  Tensor first = y[0], again = y[0];
  first.mul_(w);
  CHECK(again.grad_fn()->name() == "AsStridedBackward0");  // rebuilt: its old SelectBackward0 was stale
  again.sum().backward();
  CHECK(w.grad().tolist_str() == "[1.0, 2.0]");
  CHECK(x.grad().tolist_str() == "[[2.0, 2.0], [0.0, 0.0]]");
}
