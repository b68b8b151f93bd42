// Values, layouts and argument checks where a differential fuzz against PyTorch 1.13 found ember
// different (issue 13): float32 sqrt of +inf, results that lose their input's (permuted) layout,
// empty tensors that were not contiguous, narrow/flatten/mm rejecting or accepting the wrong
// input, fill_ refused on an expanded tensor. Every expected value is PyTorch's
// (tests/fixtures/fidelity.json).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>

#include "fidelity_fixture.h"

using namespace ember;
using fidelity::case_named;

namespace {

// Same shape, dtype and every element bit for bit (NaN matches NaN; -0 does not match +0).
std::string exact_difference(const Tensor& actual, const fixture::json& expected) {
  const std::string shape_or_dtype = fixture::compare(actual, expected);
  if (!shape_or_dtype.empty()) return shape_or_dtype;
  const Tensor want = fixture::make(expected);
  const std::vector<double> got = actual.to_vector<double>(), wanted = want.to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(wanted[i])) continue;
    if (got[i] == wanted[i] && std::signbit(got[i]) == std::signbit(wanted[i])) continue;
    return "element " + std::to_string(i) + ": " + std::to_string(got[i]) + " != " + std::to_string(wanted[i]);
  }
  return "";
}

using Op = std::function<Tensor(const std::vector<Tensor>&)>;

// The ops of tools/fixtures/fidelity_values.py's layout cases, by the name there.
const std::map<std::string, Op>& layout_ops() {
  static const std::map<std::string, Op> ops{
      {"neg", [](const auto& in) { return -in[0]; }},
      {"exp", [](const auto& in) { return in[0].exp(); }},
      {"relu", [](const auto& in) { return in[0].relu(); }},
      {"sigmoid", [](const auto& in) { return in[0].sigmoid(); }},
      {"pow_2", [](const auto& in) { return in[0].pow(2); }},
      {"clone", [](const auto& in) { return in[0].clone(); }},
      {"to_float64", [](const auto& in) { return in[0].to(kFloat64); }},
      {"mul_number", [](const auto& in) { return wrapped_number::mul(in[0], 2); }},
      {"add_number", [](const auto& in) { return wrapped_number::add(in[0], 1.5); }},
      {"gt_number", [](const auto& in) { return gt(in[0], 0); }},
      {"zeros_like", [](const auto& in) { return zeros_like(in[0]); }},
      {"ones_like", [](const auto& in) { return ones_like(in[0]); }},
      {"add", [](const auto& in) { return in[0] + in[1]; }},
      {"mul", [](const auto& in) { return in[0] * in[1]; }},
      {"div", [](const auto& in) { return in[0] / in[1]; }},
      {"eq", [](const auto& in) { return in[0] == in[1]; }},
  };
  return ops;
}

}  // namespace

TEST_CASE("float32 sqrt and pow(x, 0.5) are correctly rounded, +inf included", "[fidelity][ops]") {
  for (const std::string name : {"sqrt_float32", "pow_half_float32"}) {
    INFO(name);
    const auto& c = case_named(name);
    const Tensor x = fixture::make(c["input"]);
    REQUIRE(x.numel() > 500);  // long enough for the vectorised loop (Eigen's estimate turned +inf into NaN)
    CHECK(exact_difference(name == "sqrt_float32" ? x.sqrt() : x.pow(0.5), c["output"]) == "");
  }
}

TEST_CASE("sqrt of +inf is +inf in short and vectorised lengths", "[fidelity][ops]") {
  for (int64_t n : {2, 40}) {
    INFO(n);
    const auto& c = case_named("sqrt_inf_" + std::to_string(n));
    const Tensor inf = full({n}, INFINITY);
    CHECK(exact_difference(inf.sqrt(), c["output"]) == "");
    CHECK(exact_difference(inf.pow(0.5), c["pow_half"]) == "");
  }
}

TEST_CASE("element-wise results and clones keep their inputs' layout as TensorIterator does", "[fidelity][layout]") {
  const auto cases = fidelity::cases_starting("layout_");
  REQUIRE(cases.size() == 12 * 10 + 4 * 9);  // 12 unary ops x 10 layouts, 4 binary ops x 9 pairs
  for (const auto& c : cases) {
    const std::string name = c["name"];
    INFO(name);
    std::vector<Tensor> inputs;
    for (const auto& spec : c["inputs"]) inputs.push_back(fixture::make(spec));
    std::string op;
    for (const auto& [candidate, fn] : layout_ops())
      if (name.rfind("layout_" + candidate + "_", 0) == 0 && candidate.size() > op.size()) op = candidate;
    REQUIRE(!op.empty());
    const Tensor out = layout_ops().at(op)(inputs);
    CHECK(out.strides() == fidelity::dims_of(c["strides"]));
    CHECK(out.is_contiguous() == c["is_contiguous"].get<bool>());
    CHECK(fixture::compare(out, c["output"]) == "");
  }
}

TEST_CASE("empty_like lays its result out like its input", "[fidelity][layout]") {
  const auto& expected = case_named("empty_like_strides")["strides"];
  for (const auto& c : fidelity::cases_starting("layout_neg_")) {  // one case per input layout
    const std::string layout = c["name"].get<std::string>().substr(std::string("layout_neg_").size());
    INFO(layout);
    CHECK(empty_like(fixture::make(c["inputs"][0])).strides() == fidelity::dims_of(expected.at(layout)));
  }
}

TEST_CASE("dropout of a permuted input draws its mask in row-major order", "[fidelity][layout][random]") {
  const auto& c = case_named("dropout_of_permuted_input");
  manual_seed(8);
  CHECK(fixture::compare(dropout(fixture::make(c["input"]), 0.5, true), c["output"]) == "");
}

TEST_CASE("empty tensors are contiguous whatever their strides", "[fidelity][layout]") {
  const auto& expected = case_named("empty_tensors_are_contiguous")["shapes"];
  const std::map<std::string, Tensor> empties{
      {"0", zeros({0})},
      {"0x3t", zeros({0, 3}).t()},
      {"2x0x3permute", zeros({2, 0, 3}).permute({2, 0, 1})},
      {"4x0slice", zeros({4, 0}).slice(0, 0, 4, 2)},
  };
  REQUIRE(expected.size() == empties.size());
  for (const auto& [name, t] : empties) {
    INFO(name);
    CHECK(t.is_contiguous() == expected.at(name).get<bool>());
  }
}

TEST_CASE("contiguous() of a permuted result copies, so writing the copy leaves the result alone",
          "[fidelity][layout]") {
  const auto& expected = case_named("contiguous_of_permuted_result_copies");
  Tensor x = arange(12.0).reshape({3, 4}) - 5;
  Tensor y = x.t() * 2;
  Tensor z = y.contiguous();
  z.fill_(0);
  CHECK(y.is_contiguous() == expected["y_is_contiguous"].get<bool>());
  CHECK((z.raw_data() == y.raw_data()) == expected["z_is_y"].get<bool>());
  CHECK(fixture::compare(y, expected["y"]) == "");  // was all zeros: z aliased y
}

TEST_CASE("narrow may start at the end of a dim, and cat takes empty inputs forward and backward",
          "[fidelity][views]") {
  const auto& at_end = case_named("narrow_start_at_end");
  CHECK(ones({3}).narrow(0, 3, 0).sizes() == fidelity::dims_of(at_end["shape"]));  // was "Dimension out of range"
  CHECK(fixture::compare(arange(3.0).narrow(0, -1, 1), at_end["negative"]) == "");
  CHECK_THROWS_WITH(ones({3}).narrow(0, 4, 0), case_named("narrow_start_4")["message"].get<std::string>());
  CHECK_THROWS_WITH(ones({3}).narrow(0, -4, 0), case_named("narrow_start_-4")["message"].get<std::string>());

  const auto& expected = case_named("cat_with_empty_input");
  Tensor a = ones({1, 4}, Options().requires_grad());
  Tensor b = ones({1, 0}, Options().requires_grad());
  Tensor out = cat({a, b}, 1);
  CHECK(fixture::compare(out, expected["output"]) == "");
  out.backward(arange(4.0).view({1, 4}));
  CHECK(fixture::compare(a.grad(), expected["grad_a"]) == "");
  CHECK(b.grad().sizes() == fidelity::dims_of(expected["grad_b_shape"]));
}

TEST_CASE("flatten of a 0-dim tensor checks its dims first", "[fidelity][views]") {
  const Tensor s = scalar_tensor(1.0);
  CHECK_THROWS_WITH(s.flatten(-2, -1), case_named("flatten_scalar_bad_dims")["message"].get<std::string>());
  CHECK(s.flatten(0, -1).sizes() == fidelity::dims_of(case_named("flatten_scalar")["shape"]));
}

TEST_CASE("fill_ and zero_ may write an expanded tensor, other in-place ops may not", "[fidelity][ops]") {
  Tensor base = ones({1, 3});
  base.expand({2, 3}).fill_(2.5);  // was the overlap error
  CHECK(fixture::compare(base, case_named("expanded_fill_")["base"]) == "");
  base.expand({2, 3}).zero_();
  CHECK(fixture::compare(base, case_named("expanded_zero_")["base"]) == "");
  CHECK_THROWS_WITH(ones({1, 3}).expand({2, 3}).copy_(full({2, 3}, 4.0)),
                    case_named("expanded_copy_")["message"].get<std::string>());
  CHECK_THROWS_WITH(ones({1, 3}).expand({2, 3}).div_(2), case_named("expanded_div_")["message"].get<std::string>());
  CHECK_THROWS_WITH(ones({1, 3}).expand({2, 3}).add_(ones({2, 3})),
                    case_named("expanded_add_")["message"].get<std::string>());
}

TEST_CASE("matrix products with an empty operand give mat1's dtype without a dtype check", "[fidelity][linalg]") {
  CHECK(fixture::compare(mm(ones({2, 0}), ones({0, 3}, kFloat64)), case_named("mm_f32_f64_k0")["output"]) == "");
  CHECK(fixture::compare(mm(ones({2, 0}, kInt64), ones({0, 3})), case_named("mm_int64_f32_k0")["output"]) == "");
  CHECK(fixture::compare(mm(ones({0, 2}), ones({2, 3}, kFloat64)), case_named("mm_f32_f64_m0")["output"]) == "");
  CHECK(fixture::compare(matmul(ones({2, 0}), ones({0, 3}, kFloat64)), case_named("matmul_f32_f64_k0")["output"]) ==
        "");
  CHECK(fixture::compare(matmul(ones({1, 3, 2, 0}), ones({0, 3})), case_named("matmul_4d_2d_k0")["output"]) == "");
}
