// resize_ and the out= variants (engine/resize.cpp), with PyTorch 1.13's rules and texts
// (tests/fixtures/errors.json): an out of the wrong shape is resized, with PyTorch's warning unless
// it was empty; element-wise results are cast into out's dtype when the category allows, products
// need it exactly; nothing autograd would record is accepted.
#include <catch2/catch.hpp>

#include "captured_warnings.h"
#include "fixture.h"

using namespace ember;
using fixture::torch_error;
using fixture::torch_warning;

namespace {

Tensor linear_ramp(const Dims& sizes) {
  std::vector<double> values(product(sizes));
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * static_cast<double>(i) - 1.0;
  return from_vector(values, sizes, kFloat32);
}

}  // namespace

TEST_CASE("resize_ gives new sizes in place, growing the storage and keeping what it held", "[resize]") {
  Tensor t = arange(4.);
  Tensor view = t.narrow(0, 1, 3);
  const int64_t before = memory_allocated();
  view.resize_({2, 3});
  CHECK(view.sizes() == Dims{2, 3});
  CHECK(view.strides() == Dims{3, 1});
  CHECK(view.storage_offset() == 1);
  CHECK(memory_allocated() == before + 3 * 4);  // the storage now holds 1 + 6 floats
  CHECK(view.is_alias_of(t));
  CHECK(t.tolist_str() == "[0.0, 1.0, 2.0, 3.0]");
  CHECK(view[0].tolist_str() == "[1.0, 2.0, 3.0]");
  view[1].fill_(7);
  CHECK(t.tolist_str() == "[0.0, 1.0, 2.0, 3.0]");
  t.fill_(5);
  CHECK(view[0].tolist_str() == "[5.0, 5.0, 5.0]");  // still the bytes t writes to
  CHECK(t._version() == 2);                          // fill_ twice; resize_ does not count
}

TEST_CASE("resize_ to the same sizes keeps the strides, and to others makes them contiguous", "[resize]") {
  Tensor t = ones({2, 3}).t();
  t.resize_({3, 2});
  CHECK(t.strides() == Dims{1, 3});
  t.resize_({2, 2});
  CHECK(t.strides() == Dims{2, 1});
  CHECK(t.is_contiguous());
  t.resize_({0});
  CHECK(t.numel() == 0);
  CHECK(t.is_contiguous());
}

TEST_CASE("resize_ refuses a tensor that requires grad and a negative size, with PyTorch's texts", "[resize][errors]") {
  CHECK_THROWS_WITH(ones({2}, Options().requires_grad()).resize_({3}), torch_error("resize_requires_grad"));
  CHECK_THROWS_WITH(ones({2}).resize_({2, -1}), torch_error("resize_negative"));
}

TEST_CASE("add_out, sub_out, mul_out and div_out write the op's result into out", "[resize]") {
  const Tensor a = linear_ramp({2, 3}), b = linear_ramp({3}) + 2;
  Tensor out = empty({2, 3});
  CHECK(&add_out(out, a, b, 0.5) == &out);
  CHECK(equal(out, add(a, b, 0.5)));
  CHECK(out._version() == 1);
  CHECK(equal(sub_out(out, a, b, 2), sub(a, b, 2)));
  CHECK(equal(mul_out(out, a, b), mul(a, b)));
  CHECK(equal(div_out(out, a, b), div(a, b)));
  Tensor wider = empty({2, 3}, kFloat64);  // a float32 result is cast into float64
  CHECK(equal(add_out(wider, a, b), add(a, b).to(kFloat64)));
  Tensor self = a.clone();
  add_out(self, self, self);  // out may be an input
  CHECK(equal(self, a * 2));
}

TEST_CASE("an out of another shape is resized, with PyTorch's warning unless it was empty", "[resize]") {
  CapturedWarnings warnings;
  Tensor out = empty({0});
  add_out(out, ones({3}), ones({3}));
  CHECK(out.tolist_str() == "[2.0, 2.0, 2.0]");
  CHECK(warnings.texts.empty());
  out = empty({2});
  add_out(out, ones({3}), ones({3}));
  CHECK(out.sizes() == Dims{3});
  REQUIRE(warnings.texts.size() == 1);
  CHECK(warnings.texts[0] == torch_warning("out_resized"));
  Tensor transposed = zeros({2, 2}).t();  // the right shape keeps its strides
  mm_out(transposed, linear_ramp({2, 3}), linear_ramp({3, 2}));
  CHECK(transposed.strides() == Dims{1, 2});
  CHECK(equal(transposed, mm(linear_ramp({2, 3}), linear_ramp({3, 2}))));
  CHECK(warnings.texts.size() == 1);
}

TEST_CASE("out= dtype rules: element-wise results cast when allowed, products need out's dtype", "[resize][errors]") {
  Tensor ints = empty({2}, kInt64);
  CHECK_THROWS_WITH(add_out(ints, ones({3}), ones({3})), torch_error("add_out_cast"));
  CHECK(ints.sizes() == Dims{2});  // refused before the resize
  Tensor int_out = empty({3}, kInt64);
  CHECK_THROWS_WITH(div_out(int_out, ones({3}, kInt64), ones({3}, kInt64)), torch_error("div_out_int"));
  Tensor doubles = empty({2, 2}, kFloat64);
  CHECK_THROWS_WITH(mm_out(doubles, ones({2, 2}), ones({2, 2})), torch_error("mm_out_dtype"));
  Tensor floats = empty({2, 2});
  CHECK_THROWS_WITH(mm_out(floats, ones({2, 2}, kBFloat16), ones({2, 2}, kBFloat16)), torch_error("mm_out_bf16_dtype"));
  Tensor scalar_double = empty({}, kFloat64);
  CHECK_THROWS_WITH(matmul_out(scalar_double, ones({3}), ones({3})), torch_error("matmul_out_dot_dtype"));
  Tensor vector_double = empty({2}, kFloat64);
  CHECK_THROWS_WITH(matmul_out(vector_double, ones({2, 3}), ones({3})), torch_error("matmul_out_mv_dtype"));
}

TEST_CASE("matmul_out computes what matmul does, for every pairing of dims", "[resize]") {
  const std::vector<std::pair<Dims, Dims>> pairs = {{{3}, {3}},       {{2, 3}, {3}},       {{3}, {3, 2}},
                                                    {{2, 3}, {3, 4}}, {{2, 2, 3}, {3, 2}}, {{2, 2, 3}, {2, 3, 2}}};
  for (const auto& [left, right] : pairs) {
    INFO(to_string(left) << " @ " << to_string(right));
    Tensor out = empty({0});
    CHECK(equal(matmul_out(out, linear_ramp(left), linear_ramp(right)), matmul(linear_ramp(left), linear_ramp(right))));
  }
}

TEST_CASE("out= refuses what autograd would record, naming the product matmul chose", "[resize][errors]") {
  const Tensor needs_grad = ones({3}, Options().requires_grad());
  Tensor out = empty({3});
  CHECK_THROWS_WITH(add_out(out, needs_grad, ones({3})), torch_error("add_out_requires_grad"));
  CHECK_THROWS_WITH(mul_out(out, ones({3}), needs_grad), torch_error("mul_out_requires_grad"));
  Tensor out_needs_grad = empty({3}, Options().requires_grad());
  CHECK_THROWS_WITH(sub_out(out_needs_grad, ones({3}), ones({3})), torch_error("sub_out_out_requires_grad"));
  Tensor matrix = empty({2, 2});
  CHECK_THROWS_WITH(mm_out(matrix, ones({2, 2}, Options().requires_grad()), ones({2, 2})),
                    torch_error("mm_out_requires_grad"));
  Tensor scalar = empty({});
  CHECK_THROWS_WITH(matmul_out(scalar, needs_grad, ones({3})), torch_error("matmul_out_dot_requires_grad"));
  Tensor vector = empty({2});
  CHECK_THROWS_WITH(matmul_out(vector, ones({2, 3}, Options().requires_grad()), ones({3})),
                    torch_error("matmul_out_mv_requires_grad"));
  Tensor batch = empty({2, 2, 2});
  CHECK_THROWS_WITH(matmul_out(batch, ones({2, 2, 3}, Options().requires_grad()), ones({3, 2})),
                    torch_error("matmul_out_folded_requires_grad"));
  CHECK_THROWS_WITH(matmul_out(batch, ones({2, 2, 3}, Options().requires_grad()), ones({2, 3, 2})),
                    torch_error("matmul_out_bmm_requires_grad"));
  NoGradGuard no_grad;  // nothing to record: allowed, and out stays a plain tensor
  add_out(out, needs_grad, ones({3}));
  CHECK(out.tolist_str() == "[2.0, 2.0, 2.0]");
  CHECK_FALSE(out.requires_grad());
}
