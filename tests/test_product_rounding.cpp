// The bound the GPU's products are checked against (product_rounding.h), checked here on the CPU:
// oneDNN's products, which sum in float32, lie within it; a product summed in bf16, or one off by
// two units in the last place, or an operand rounded to TF32 where the promise says none, does not.
#include <catch2/catch.hpp>

#include <cmath>

#include "product_rounding.h"

using namespace ember;
using product_rounding::Promise;
using product_rounding::within_promise;

namespace {

// `value` with its float32 mantissa cut to TF32's 10 bits (rounded to nearest).
float to_tf32(float value) {
  const int exponent = std::ilogb(value);
  const float unit = std::ldexp(1.0f, exponent - 10);
  return std::nearbyint(value / unit) * unit;
}

// a @ b summed in `dtype` itself, each partial sum rounded to it: a 16-bit accumulator.
Tensor summed_in(DType dtype, const Tensor& a, const Tensor& b) {
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  std::vector<double> out(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      Tensor sum = zeros({}, dtype);
      for (int64_t k = 0; k < K; ++k) sum = (sum + tensor({x[i * K + k] * y[k * N + j]}).to(dtype)).view({});
      out[i * N + j] = sum.item<double>();
    }
  return from_vector(out, {M, N}, dtype);
}

}  // namespace

TEST_CASE("oneDNN's bf16 and fp16 products lie within the rounding of a float32 accumulation", "[products]") {
  manual_seed(0);
  for (DType low : {kBFloat16, kFloat16}) {
    INFO(scalar_type_name(low));
    const Tensor a = randn({24, 512}).to(low), b = randn({512, 16}).to(low);
    CHECK(within_promise(mm(a, b), a, b) == "");
    CHECK(within_promise(mm(a, b.t().contiguous().t()), a, b) == "");  // the transposed kernel too
  }
}

TEST_CASE("a product summed in bf16 is outside the rounding of a float32 accumulation", "[products]") {
  // 4096 ones: a bf16 accumulator stalls at 256, where 256 + 1 rounds back to 256.
  const Tensor ones_row = ones({1, 4096}, kBFloat16), ones_column = ones({4096, 1}, kBFloat16);
  CHECK(within_promise(full({1, 1}, 4096, kBFloat16), ones_row, ones_column) == "");
  CHECK_THAT(within_promise(full({1, 1}, 256, kBFloat16), ones_row, ones_column),
             Catch::StartsWith("element [0, 0]: 256 is 3840 from the exact 4096"));
  manual_seed(1);
  const Tensor a = randn({2, 256}).to(kBFloat16), b = randn({256, 2}).to(kBFloat16);
  CHECK(within_promise(summed_in(kBFloat16, a, b), a, b) != "");
  CHECK(within_promise(summed_in(kFloat32, a, b).to(kBFloat16), a, b) == "");
}

TEST_CASE("a bf16 product two units in the last place off is outside the bound", "[products]") {
  manual_seed(2);
  const Tensor a = randn({4, 64}).to(kBFloat16), b = randn({64, 4}).to(kBFloat16);
  const Tensor product = mm(a, b);
  REQUIRE(within_promise(product, a, b) == "");
  const double value = product[1][2].item<double>();
  const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(value)) - 7);
  Tensor nudged = product.clone();
  nudged[1][2].fill_(value + 2 * ulp);
  CHECK_THAT(within_promise(nudged, a, b), Catch::StartsWith("element [1, 2]"));
}

TEST_CASE("operands rounded to TF32 are within the TF32 promise and outside the float32 one", "[products]") {
  manual_seed(3);
  const Tensor a = randn({8, 128}), b = randn({128, 8});
  std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  for (float& v : x) v = to_tf32(v);
  for (float& v : y) v = to_tf32(v);
  // What a tensor-core product with TF32 allowed computes: the rounded operands, summed in float32.
  const Tensor as_tf32 = mm(from_vector(x, {8, 128}), from_vector(y, {128, 8}));
  CHECK(within_promise(as_tf32, a, b, Promise{.operand_rounding = 0x1p-10}) == "");
  CHECK(within_promise(as_tf32, a, b) != "");
  CHECK(within_promise(mm(a, b), a, b) == "");
}
