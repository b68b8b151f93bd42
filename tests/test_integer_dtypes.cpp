// uint8, int8, int16 and int32 beside int64 and bool, against PyTorch 1.13
// (tests/fixtures/integer_dtypes.json, tools/fixtures/integer_dtypes.py): the promotion lattice,
// ops that wrap around at the type's range, floor division and Python's remainder, conversions
// from float that truncate, printing, the default dtype, and the texts of what PyTorch refuses.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "fixture.h"

using namespace ember;

namespace {

const fixture::json& integer_dtypes() { return fixture::load("integer_dtypes.json"); }

// Each op of the fixture, as its "code" reads in Python with x and y of one dtype.
using BinaryCall = std::function<Tensor(const Tensor&, const Tensor&)>;
const std::map<std::string, BinaryCall>& integer_ops() {
  static const std::map<std::string, BinaryCall> ops = {
      {"add", [](const Tensor& x, const Tensor& y) { return x + y; }},
      {"sub", [](const Tensor& x, const Tensor& y) { return x - y; }},
      {"mul", [](const Tensor& x, const Tensor& y) { return x * y; }},
      {"div", [](const Tensor& x, const Tensor& y) { return x / y; }},
      {"floor_divide", [](const Tensor& x, const Tensor& y) { return floor_divide(x, y); }},
      {"remainder", [](const Tensor& x, const Tensor& y) { return remainder(x, y); }},
      {"neg", [](const Tensor& x, const Tensor&) { return -x; }},
      {"abs", [](const Tensor& x, const Tensor&) { return x.abs(); }},
      {"add_int", [](const Tensor& x, const Tensor&) { return x + 2; }},
      {"mul_float", [](const Tensor& x, const Tensor&) { return x * 2.5; }},
      {"add_0d_int64", [](const Tensor& x, const Tensor&) { return x + scalar_tensor(3, kInt64); }},
      {"add_int64", [](const Tensor& x, const Tensor& y) { return x + y.to(kInt64); }},
      {"add_float32", [](const Tensor& x, const Tensor& y) { return x + y.to(kFloat32); }},
      {"add_bool", [](const Tensor& x, const Tensor& y) { return x + (y > 1); }},
      {"pow_2", [](const Tensor& x, const Tensor&) { return pow(x, 2); }},
      {"sqrt", [](const Tensor& x, const Tensor&) { return x.sqrt(); }},
      {"eq", [](const Tensor& x, const Tensor& y) { return x == y; }},
      {"lt", [](const Tensor& x, const Tensor& y) { return x < y; }},
      {"maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); }},
      {"minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); }},
      {"where", [](const Tensor& x, const Tensor& y) { return where(x > y, x, y); }},
      {"clamp", [](const Tensor& x, const Tensor&) { return x.clamp(0, 100); }},
      {"sum", [](const Tensor& x, const Tensor&) { return x.sum(); }},
      {"max", [](const Tensor& x, const Tensor&) { return x.max(); }},
      {"argmax", [](const Tensor& x, const Tensor&) { return x.argmax(); }},
      {"cat",
       [](const Tensor& x, const Tensor& y) {
         return cat({x, y});
       }},
      {"add_inplace", [](const Tensor& x, const Tensor& y) { return x.clone().add_(y); }},
      {"to_float32", [](const Tensor& x, const Tensor&) { return x.to(kFloat32); }},
      {"to_int64", [](const Tensor& x, const Tensor&) { return x.to(kInt64); }},
      {"to_bool", [](const Tensor& x, const Tensor&) { return x.to(kBool); }},
  };
  return ops;
}

DType dtype_named(const fixture::json& name) { return fixture::parse_dtype(name.get<std::string>()); }

}  // namespace

TEST_CASE("the integer dtypes promote as PyTorch's lattice", "[dtypes]") {
  for (const auto& row : integer_dtypes()["promote_types"]) {
    INFO(row.dump());
    CHECK(promote_types(dtype_named(row[0]), dtype_named(row[1])) == dtype_named(row[2]));
  }
}

TEST_CASE("a 0-dim tensor or a number lifts an integer tensor only by its category", "[dtypes]") {
  // The fixture's codes, in order: for each dtype, eight operands against a [1] tensor of it, then
  // a 0-dim tensor of it against a [1] int8 tensor.
  const fixture::json& cases = integer_dtypes()["result_type"];
  size_t i = 0;
  for (const DType dtype : {kUInt8, kInt8, kInt16, kInt32}) {
    const Tensor t = ones({1}, dtype);
    const std::vector<DType> got = {result_type(t, scalar_tensor(1, kInt64)),
                                    result_type(t, scalar_tensor(1.0)),
                                    result_type(t, scalar_tensor(true, kBool)),
                                    result_type(t, 2),
                                    result_type(t, 2.5),
                                    result_type(t, true),
                                    result_type(t, ones({1}, kInt8)),
                                    result_type(t, ones({1}, kUInt8)),
                                    result_type(scalar_tensor(1, dtype), ones({1}, kInt8))};
    for (const DType dtype_got : got) {
      INFO(cases[i]["code"].get<std::string>());
      CHECK(dtype_got == dtype_named(cases[i++]["result"]));
    }
  }
  CHECK(i == cases.size());
}

TEST_CASE("integer ops wrap, floor and take the divisor's sign as PyTorch's", "[dtypes]") {
  size_t checked = 0;
  for (const auto& c : integer_dtypes()["ops"]) {
    const std::string name = c["name"];
    REQUIRE(integer_ops().count(name) == 1);
    INFO(name << " on " << c["dtype"].get<std::string>() << ": " << c["code"].get<std::string>());
    const Tensor x = fixture::make_base(c["x"]), y = fixture::make_base(c["y"]);
    CHECK(fixture::compare_exact(integer_ops().at(name)(x, y), c["output"]) == "");
    ++checked;
  }
  CHECK(checked == 4 * integer_ops().size());  // every listed op, on each of the four dtypes
}

TEST_CASE("a conversion to a narrow integer truncates and keeps the low bits", "[dtypes]") {
  for (const auto& c : integer_dtypes()["casts"]) {
    INFO(c["from"].get<std::string>() << " -> " << c["to"].get<std::string>());
    const Tensor input = fixture::make_base(c["input"]);
    CHECK(fixture::compare_exact(input.to(dtype_named(c["to"])), c["output"]) == "");
  }
}

TEST_CASE("integer tensors print with their dtype", "[dtypes][printing]") {
  const auto& reprs = integer_dtypes()["reprs"];
  const std::vector<Tensor> tensors = {
      from_vector(std::vector<int64_t>{1, -2, 300}, {3}, kInt32),
      from_vector(std::vector<int64_t>{0, 255}, {2}, kUInt8),
      from_vector(std::vector<int64_t>{-128, 127, 0, 1}, {2, 2}, kInt8),
      scalar_tensor(7, kInt16),
      empty({0}, kInt32),
      arange(3, kInt8) * 40,
  };
  REQUIRE(tensors.size() == reprs.size());
  for (size_t i = 0; i < tensors.size(); ++i) CHECK(tensors[i].str() == reprs[i]["repr"].get<std::string>());
}

TEST_CASE("set_default_dtype changes what float factories and integer division make", "[dtypes]") {
  const auto& cases = integer_dtypes()["default_dtype"];
  set_default_dtype(kFloat64);
  const std::vector<Tensor> made = {
      tensor({1.5}),
      tensor({1.5}, kFloat32),
      zeros({2}),
      full({2}, 2.5),
      arange(Scalar(0.0), Scalar(2.0), Options()),
      from_vector(std::vector<int64_t>{1, 2}, {2}) / 2,
      from_vector(std::vector<int64_t>{1, 2}, {2}, kInt32) * 2.5,
      from_vector(std::vector<int64_t>{1, 2}, {2}).sqrt(),
      from_vector(std::vector<int64_t>{1, 2}, {2}),
  };
  std::vector<std::string> reprs;
  for (const Tensor& t : made) reprs.push_back(t.str());
  set_default_dtype(kFloat32);
  REQUIRE(made.size() == cases.size());
  for (size_t i = 0; i < made.size(); ++i) {
    INFO(cases[i]["code"].get<std::string>());
    CHECK(made[i].dtype() == dtype_named(cases[i]["dtype"]));
    CHECK(reprs[i] == cases[i]["repr"].get<std::string>());
  }
  CHECK(get_default_dtype() == kFloat32);
}

TEST_CASE("the integer dtypes refuse what PyTorch refuses, with its texts", "[dtypes][errors]") {
  std::map<std::string, std::string> texts;
  for (const auto& e : integer_dtypes()["errors"]) texts[e["name"]] = e["message"];
  CHECK_THROWS_WITH(full({2}, 300, kInt8), texts["fill_int8_overflow"]);
  CHECK_THROWS_WITH(full({2}, 256, kUInt8), texts["fill_uint8_overflow"]);
  CHECK_THROWS_WITH(full({2}, -0.5, kUInt8), texts["fill_uint8_negative_float"]);
  CHECK_THROWS_WITH(zeros({2}, kInt16).fill_(70000), texts["fill_int16_overflow"]);
  CHECK_THROWS_WITH(full({2}, 3e9, kInt32), texts["fill_int32_overflow"]);
  const Tensor int32 = from_vector(std::vector<int64_t>{1, 2}, {2}, kInt32);
  CHECK_THROWS_WITH(int32.mean(), texts["mean_of_int32"]);
  // C++ has one text, torch's setter's (`t.requires_grad = True`); its method has another (Python's).
  CHECK_THROWS_WITH(int32.to(kInt16).requires_grad_(), texts["requires_grad_setter_int16"]);
  CHECK_THROWS_WITH(floor_divide(int32, 0), texts["int32_divide_by_zero"]);
  CHECK_THROWS_WITH(floor_divide(ones({2}, Options().requires_grad()), 2.0).sum().backward(),
                    texts["floor_divide_backward"]);
  CHECK_THROWS_WITH(from_vector(std::vector<int64_t>{4}, {1}, kInt32).exp_(), texts["exp_inplace_int32"]);
  CHECK_THROWS_WITH(int32.to(kUInt8).norm(), texts["norm_of_uint8"]);
  CHECK_THROWS_AS(set_default_dtype(kInt32), TypeError);
  CHECK_THROWS_WITH(set_default_dtype(kInt32), texts["set_default_dtype_int32"]);
  // Also refused, asserted below: the five of view(dtype); and from Python only: requires_grad_int16.
  CHECK(texts.size() == 18);
}

TEST_CASE("random_'s three forms draw PyTorch's stream in every dtype", "[dtypes][random]") {
  const auto& cases = integer_dtypes()["random"];
  const std::vector<std::function<Tensor()>> draws = {
      [] { return zeros({4}).random_(); },
      [] { return zeros({2}, kInt8).random_(); },
      [] { return zeros({2}, kFloat64).random_(); },
      [] { return zeros({2}, kInt64).random_(7); },
      [] { return zeros({2}, kUInt8).random_(3, 9); },
      [] { return zeros({3}, kBool).random_(); },
      [] { return zeros({3}, kInt32).random_(-5, 5); },
      [] { return zeros({2}, kInt16).random_(); },
  };
  REQUIRE(draws.size() == cases.size());
  for (size_t i = 0; i < draws.size(); ++i) {
    INFO(cases[i]["code"].get<std::string>());
    manual_seed(0);
    CHECK(fixture::compare_exact(draws[i](), cases[i]["output"]) == "");
  }
  const Tensor leaf = zeros({3}, Options().requires_grad());
  const std::vector<std::string> nodes = {leaf.clone().random_(0, 5).grad_fn()->name(),
                                          leaf.clone().random_(5).grad_fn()->name(),
                                          leaf.clone().random_().grad_fn()->name()};
  CHECK(nodes == integer_dtypes()["random_grad_fn"].get<std::vector<std::string>>());
}

TEST_CASE("view(dtype) reads the same bytes as another dtype, outside autograd", "[dtypes][views]") {
  const std::map<std::string, std::function<Tensor(const Tensor&)>> views = {
      {"float32_as_int32", [](const Tensor& x) { return x.view(kInt32); }},
      {"float32_as_uint8", [](const Tensor& x) { return x.view(kUInt8); }},
      {"float32_as_int16_of_a_slice", [](const Tensor& x) { return x.slice(1, 2, 4).view(kInt16); }},
      {"float32_as_float64", [](const Tensor& x) { return x.view(kFloat64); }},
      {"float32_as_bfloat16", [](const Tensor& x) { return x.view(kBFloat16); }},
      {"uint8_as_float32", [](const Tensor& x) { return x.view(kUInt8).slice(1, 4, 12).view(kFloat32); }},
  };
  for (const auto& c : integer_dtypes()["view_dtype"]) {
    INFO(c["code"].get<std::string>());
    const Tensor x = arange(8, kFloat32).reshape({2, 4}).requires_grad_();
    const Tensor out = views.at(c["name"])(x);
    CHECK(fixture::compare_exact(out, c["output"]) == "");
    CHECK(out.strides() == fixture::dims_arg(c["strides"]));
    CHECK(out.storage_offset() == c["storage_offset"].get<int64_t>());
    CHECK(out.requires_grad() == c["requires_grad"].get<bool>());
    CHECK(out._is_view() == c["is_view"].get<bool>());
    CHECK(out.impl()->storage == x.impl()->storage);
  }
  std::map<std::string, std::string> texts;
  for (const auto& e : integer_dtypes()["errors"]) texts[e["name"]] = e["message"];
  CHECK_THROWS_WITH(ones({}).view(kUInt8), texts["view_dtype_0d"]);
  CHECK_THROWS_WITH(ones({4, 2}).t().view(kUInt8), texts["view_dtype_last_stride"]);
  CHECK_THROWS_WITH(ones({3}, kUInt8).view(kFloat32), texts["view_dtype_last_size"]);
  CHECK_THROWS_WITH(ones({8}, kUInt8).slice(0, 1, 5).view(kFloat32), texts["view_dtype_offset"]);
  CHECK_THROWS_WITH(ones({2, 6}, kUInt8).slice(1, 0, 4).view(kFloat32), texts["view_dtype_stride"]);
}

TEST_CASE("a write through view(dtype) bumps the shared version counter", "[dtypes][views]") {
  Tensor x = zeros({4});
  Tensor bits = x.view(kInt32);
  bits.fill_(1065353216);  // the bits of 1.0f
  CHECK(x._version() == 1);
  CHECK(x.sum().item<float>() == 4.0f);
}
