// Tensors over memory ember does not own (from_blob, what torch.from_numpy is built on) and
// Python's truth value of a tensor (is_nonzero).
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

TEST_CASE("from_blob shares the caller's bytes and releases them when the last tensor goes", "[from_blob]") {
  double values[6] = {0, 1, 2, 3, 4, 5};
  int released = 0;
  const int64_t allocated_before = memory_allocated();
  {
    Tensor t = from_blob(
        values, {2, 3}, {3, 1}, [&](void* data) { released += data == values; }, kFloat64);
    CHECK(t.dtype() == kFloat64);
    CHECK(t.raw_data() == values);
    CHECK(memory_allocated() == allocated_before);  // not the allocator's bytes
    Tensor column = t.t()[1];
    column.mul_(10);
    CHECK(values[1] == 10);
    CHECK(values[4] == 40);
    values[0] = -1;
    CHECK(t.tolist_str() == "[[-1.0, 10.0, 2.0], [3.0, 40.0, 5.0]]");
    t = Tensor();
    CHECK(released == 0);  // the view still holds the storage
  }
  CHECK(released == 1);
}

TEST_CASE("from_blob takes any strides, and its storage cannot grow", "[from_blob]") {
  float values[6] = {0, 1, 2, 3, 4, 5};
  Tensor every_other = from_blob(
      values, {3}, {2}, [](void*) {}, kFloat32);
  CHECK(every_other.tolist_str() == "[0.0, 2.0, 4.0]");
  CHECK(every_other.impl()->storage->nbytes == 5 * 4);
  CHECK_THROWS_WITH(every_other.resize_({10}), "Trying to resize storage that is not resizable");
  CHECK(from_blob(values, {0, 3}, {3, 1}, [](void*) {}).numel() == 0);
}

TEST_CASE("is_nonzero is the truth value of a one-element tensor", "[from_blob]") {
  CHECK(is_nonzero(tensor({2.5})));
  CHECK_FALSE(is_nonzero(zeros({1, 1}, kInt64)));
  CHECK(is_nonzero(full({}, NAN)));
  CHECK_THROWS_WITH(is_nonzero(zeros({2})), "Boolean value of Tensor with more than one value is ambiguous");
  CHECK_THROWS_WITH(is_nonzero(zeros({0})), "Boolean value of Tensor with no values is ambiguous");
}
