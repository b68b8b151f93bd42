// The tensor core as the chapter teaches it: views share storage and the version counter,
// in-place ops bump it, clone() copies, and every byte is counted by the allocator.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

TEST_CASE("a row view shares storage: row += 100 changes the original (chapter pitfall 3)", "[core]") {
  Tensor t = arange(6.).reshape({2, 3});
  Tensor row = t[0];
  row += 100;
  CHECK(t[0].tolist_str() == "[100.0, 101.0, 102.0]");
  CHECK(t._version() == 1);
  CHECK(row._version() == 1);
}

TEST_CASE("clone() is independent of the tensor it copies", "[core]") {
  Tensor t = arange(6.).reshape({2, 3});
  Tensor copy = t[0].clone();
  copy += 100;
  CHECK(t[0].tolist_str() == "[0.0, 1.0, 2.0]");
  CHECK(copy.tolist_str() == "[100.0, 101.0, 102.0]");
  CHECK(t._version() == 0);
  CHECK(copy._version() == 1);
}

TEST_CASE("views are strided reinterpretations, not copies", "[core]") {
  Tensor t = arange(12.).reshape({3, 4});
  Tensor tt = t.t();
  CHECK(tt.sizes() == Dims{4, 3});
  CHECK(tt.strides() == Dims{1, 4});
  CHECK_FALSE(tt.is_contiguous());
  CHECK(tt.raw_data() == t.raw_data());
  Tensor column = t.select(1, 2);
  CHECK(column.strides() == Dims{4});
  CHECK(column.storage_offset() == 2);
  CHECK(column.tolist_str() == "[2.0, 6.0, 10.0]");
  Tensor every_other = t.slice(1, 0, 4, 2);
  CHECK(every_other.tolist_str() == "[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]");
  Tensor expanded = tensor({1, 2, 3}).expand({2, 3});
  CHECK(expanded.strides() == Dims{0, 1});
  CHECK(expanded.tolist_str() == "[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]");
}

TEST_CASE("contiguous() copies only when the layout needs it", "[core]") {
  Tensor t = arange(6.).reshape({2, 3});
  CHECK(t.contiguous().is_same(t));
  Tensor tt = t.t().contiguous();
  CHECK(tt.is_contiguous());
  CHECK(tt.raw_data() != t.raw_data());
  CHECK(tt.tolist_str() == "[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]");
}

TEST_CASE("reshape is a view when strides allow and a copy otherwise", "[core]") {
  Tensor t = arange(6.).reshape({2, 3});
  CHECK(t.reshape({3, 2}).raw_data() == t.raw_data());
  Tensor copied = t.t().reshape({6});
  CHECK(copied.raw_data() != t.raw_data());
  CHECK(copied.tolist_str() == "[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]");
}

TEST_CASE("version counter follows PyTorch's sequence (fact sheet section 2)", "[core]") {
  Tensor t = zeros({3, 4});
  CHECK(t._version() == 0);
  Tensor row = t[1];
  row += 100;
  CHECK(t._version() == 1);
  CHECK(row._version() == 1);
  Tensor d = t.detach();
  CHECK(d._version() == 1);
  d.add_(1);
  CHECK(t._version() == 2);
  t.view({12}).mul_(2);
  CHECK(t._version() == 3);
  CHECK(row._version() == 3);
  {
    NoGradGuard no_grad;
    t.add_(1);
  }
  CHECK(t._version() == 4);
  t[0][0].fill_(5);
  CHECK(t._version() == 5);
  t.zero_();
  t.copy_(ones({3, 4}));
  t.sub_(1);
  t.div_(2);
  CHECK(t._version() == 9);
}

TEST_CASE("in-place ops write through strided views", "[core]") {
  Tensor t = zeros({3, 3});
  t.t()[0] += tensor({1, 2, 3});  // column 0 of t
  CHECK(t.tolist_str() == "[[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]]");
  t.slice(1, 1, 3) *= 0;
  t.select(1, 2).fill_(7);
  CHECK(t.tolist_str() == "[[1.0, 0.0, 7.0], [2.0, 0.0, 7.0], [3.0, 0.0, 7.0]]");
}

TEST_CASE("memory_allocated counts live storages and returns to its start when they go", "[core][memory]") {
  const int64_t start = memory_allocated();
  reset_peak_memory_stats();
  {
    Tensor a = zeros({256, 4});  // 4096 bytes
    CHECK(memory_allocated() == start + 4096);
    Tensor view = a.t();  // a view allocates nothing
    CHECK(memory_allocated() == start + 4096);
    Tensor b = a.clone();
    CHECK(memory_allocated() == start + 8192);
    CHECK(max_memory_allocated() == start + 8192);
  }
  CHECK(memory_allocated() == start);
  CHECK(max_memory_allocated() == start + 8192);
  reset_peak_memory_stats();
  CHECK(max_memory_allocated() == start);
}

TEST_CASE("dtypes have PyTorch's names, sizes and promotion", "[core]") {
  CHECK(to_string(kFloat32) == "torch.float32");
  CHECK(std::string(scalar_type_name(kFloat16)) == "Half");
  CHECK(element_size(kBFloat16) == 2);
  CHECK(promote_types(kBFloat16, kFloat16) == kFloat32);
  CHECK(promote_types(kInt64, kBFloat16) == kBFloat16);
  CHECK(promote_types(kBool, kInt64) == kInt64);
  CHECK((ones({3}, kInt64) + 2).dtype() == kInt64);
  CHECK((ones({3}, kInt64) + 2.5).dtype() == kFloat32);
  CHECK((ones({3}) + ones({}, kFloat64)).dtype() == kFloat32);
  CHECK((ones({3}, kInt64) * ones({}, kFloat64)).dtype() == kFloat64);
}

TEST_CASE("bfloat16 and float16 round to nearest even and keep NaN", "[core]") {
  CHECK(BFloat16(1.00390625f).bits == 0x3F80);  // a tie: rounds to even (down)
  CHECK(BFloat16(1.01171875f).bits == 0x3F82);  // a tie: rounds to even (up)
  CHECK(std::isnan(static_cast<float>(BFloat16(NAN))));
  CHECK(Float16(65520.0f).bits == 0x7C00);  // rounds up to infinity
  CHECK(static_cast<float>(Float16(0.1f)) == 0.0999755859375f);
  CHECK(std::isnan(static_cast<float>(Float16(NAN))));
}

TEST_CASE("factories make PyTorch's values and dtypes", "[core]") {
  CHECK(arange(5).dtype() == kInt64);
  CHECK(arange(5).tolist_str() == "[0, 1, 2, 3, 4]");
  CHECK(arange(0, 1, 0.25).tolist_str() == "[0.0, 0.25, 0.5, 0.75]");
  CHECK(eye(2, 3).tolist_str() == "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]");
  CHECK(full({2}, 7, kInt64).tolist_str() == "[7, 7]");
  CHECK(from_vector(std::vector<bool>{true, false}, {2}).tolist_str() == "[True, False]");
  CHECK(zeros({0, 3}).numel() == 0);
}

TEST_CASE("set_num_threads drives the intra-op thread count", "[core]") {
  const int before = get_num_threads();
  set_num_threads(1);
  CHECK(get_num_threads() == 1);
  Tensor a = ones({64, 64});
  CHECK(mm(a, a).sum().item<float>() == 64.f * 64.f * 64.f);
  set_num_threads(before);
  CHECK(get_num_threads() == before);
  CHECK_THROWS_WITH(set_num_threads(0), "set_num_threads expects a positive integer");
}

TEST_CASE("allclose and equal compare values like torch.allclose / torch.equal", "[core]") {
  Tensor a = tensor({1.0, 2.0, 3.0});
  CHECK(allclose(a, a + 1e-7));
  CHECK_FALSE(allclose(a, a + 1e-3));
  CHECK(allclose(a, a.expand({2, 3})));
  CHECK(equal(a, a.clone()));
  CHECK_FALSE(equal(a, a.unsqueeze(0)));
  CHECK_THROWS_WITH(allclose(a, a.to(kFloat64)), "Float did not match Double");
}

TEST_CASE("int64 arithmetic wraps around on overflow, as in PyTorch", "[core]") {
  Tensor big = full({1}, INT64_MAX, kInt64);
  CHECK((big + 1).item<int64_t>() == INT64_MIN);
  CHECK((-(big + 1)).item<int64_t>() == INT64_MIN);
  CHECK((big * 2).item<int64_t>() == -2);
}
