// Python's basic indexing in C++ (ops/indexing.h): each index is a view op, so t[i, a:b] shares
// t's storage and version counter, and mistakes get Python's messages as IndexError.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;
using namespace ember::indexing;

TEST_CASE("integers, slices, None and the ellipsis index as views of the same storage", "[indexing]") {
  Tensor t = arange(24.).reshape({2, 3, 4});
  CHECK(index(t, {1, 2}).tolist_str() == "[20.0, 21.0, 22.0, 23.0]");
  CHECK(index(t, {0, Slice(1, None), Slice(None, None, 2)}).tolist_str() == "[[4.0, 6.0], [8.0, 10.0]]");
  CHECK(index(t, {Ellipsis, -1}).sizes() == Dims{2, 3});
  CHECK(index(t, {Ellipsis, -1}).tolist_str() == "[[3.0, 7.0, 11.0], [15.0, 19.0, 23.0]]");
  CHECK(index(t, {None, 0, None}).sizes() == Dims{1, 1, 3, 4});
  CHECK(index(t, {Slice(-2, 100)}).sizes() == Dims{2, 3, 4});  // bounds clamp as Python's do
  Tensor view = index(t, {1, Slice(), 0});
  CHECK(view.is_alias_of(t));
  CHECK(view._is_view());
  view += 100;
  CHECK(t._version() == 1);
  CHECK(index(t, {1, Slice(), 0}).tolist_str() == "[112.0, 116.0, 120.0]");
}

TEST_CASE("each index is recorded as its view op", "[indexing]") {
  Tensor t = ones({2, 3}, Options().requires_grad());
  CHECK(index(t, {0}).grad_fn()->name() == "SelectBackward0");
  CHECK(index(t, {Slice(), 0}).grad_fn()->name() == "SelectBackward0");
  CHECK(index(t, {Slice(1, None)}).grad_fn()->name() == "SliceBackward0");
  CHECK(index(t, {None}).grad_fn()->name() == "UnsqueezeBackward0");
  Tensor whole = index(t, {Ellipsis});
  CHECK(whole.is_alias_of(t));
  CHECK_FALSE(whole.is_same(t));
}

TEST_CASE("indexing mistakes raise IndexError with Python's messages", "[indexing]") {
  Tensor t = zeros({2, 3});
  CHECK_THROWS_AS(index(t, {Slice(), 5}), IndexError);
  CHECK_THROWS_WITH(index(t, {Slice(), 5}), "index 5 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(index(t, {None, 1, 7}), "index 7 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(index(t, {0, 0, 0}), "too many indices for tensor of dimension 2");
  CHECK_THROWS_WITH(index(zeros({}), {0}), "too many indices for tensor of dimension 0");
  CHECK_THROWS_AS(zeros({})[0], IndexError);
  CHECK_THROWS_WITH(zeros({3})[3], "index 3 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(index(t, {Slice(None, None, -1)}), "step must be greater than zero");
}

TEST_CASE("index_put_ fills or copies into the indexed view and bumps the version", "[indexing]") {
  Tensor t = zeros({2, 3});
  index_put_(t, {Slice(), 0}, 5);
  index_put_(t, {1, Slice(1, None)}, tensor({7, 8}));
  CHECK(t.tolist_str() == "[[5.0, 0.0, 0.0], [5.0, 7.0, 8.0]]");
  CHECK(t._version() == 2);
  index_put_(t, {0}, ones({1, 1, 3}));  // leading ones are dropped, as Python's t[0] = value does
  CHECK(t.tolist_str() == "[[1.0, 1.0, 1.0], [5.0, 7.0, 8.0]]");
  CHECK_THROWS_WITH(index_put_(t, {0}, tensor({1, 2})),
                    "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension "
                    "0.  Target sizes: [3].  Tensor sizes: [2]");
}
