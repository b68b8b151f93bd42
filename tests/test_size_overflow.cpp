// Huge and negative sizes into every factory, view and resize_ (issue 21): each call ends in
// PyTorch 1.13's result or its error text (tests/fixtures/size_sweep.json, written by
// tools/fixtures/size_sweep.py), never in a size that wrapped around. The sanitizer build runs the
// same cases, so a product that overflows on the way to a clean error is reported there. Where
// PyTorch's own answer comes from a size that wrapped around, or is a negative size it accepts,
// ember refuses instead; the cases below name each such difference and what ember does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>

#include "captured_warnings.h"
#include "fixture.h"
#include "op_sweep.h"

using namespace ember;
using fixture::json;

namespace {

constexpr int64_t kHuge = int64_t{1} << 62;

Tensor input_of(const json& spec) {
  Tensor t = ones(fixture::dims_arg(spec["sizes"]));
  for (const json& step : spec["views"]) t = fixture::apply_view_step(t, step);
  return t;
}

using Call = std::function<Tensor(std::vector<Tensor>&, const json&)>;

// The calls of size_sweep.py's OPS, with ember's API.
const std::map<std::string, Call>& calls() {
  using fixture::dims_arg;
  static const std::map<std::string, Call> ops{
      {"empty", [](auto&, const json& a) { return empty(dims_arg(a[0])); }},
      {"zeros", [](auto&, const json& a) { return zeros(dims_arg(a[0])); }},
      {"ones", [](auto&, const json& a) { return ones(dims_arg(a[0])); }},
      {"full", [](auto&, const json& a) { return full(dims_arg(a[0]), 1.5); }},
      {"rand", [](auto&, const json& a) { return rand(dims_arg(a[0])); }},
      {"randn", [](auto&, const json& a) { return randn(dims_arg(a[0])); }},
      {"randint", [](auto&, const json& a) { return randint(0, 5, dims_arg(a[0])); }},
      {"eye", [](auto&, const json& a) { return eye(a[0].get<int64_t>(), a[1].get<int64_t>()); }},
      {"arange", [](auto&, const json& a) { return arange(a[0].get<double>()); }},
      {"randperm", [](auto&, const json& a) { return randperm(a[0].get<int64_t>()); }},
      {"resize_", [](auto& in, const json& a) { return in[0].resize_(dims_arg(a[0])); }},
      {"view", [](auto& in, const json& a) { return in[0].view(dims_arg(a[0])); }},
      {"reshape", [](auto& in, const json& a) { return in[0].reshape(dims_arg(a[0])); }},
      {"expand", [](auto& in, const json& a) { return in[0].expand(dims_arg(a[0])); }},
      {"as_strided",
       [](auto& in, const json& a) { return as_strided(in[0], dims_arg(a[0]), dims_arg(a[1]), a[2].get<int64_t>()); }},
      {"narrow", [](auto& in, const json& a) { return in[0].narrow(a[0], a[1], a[2]); }},
      {"select", [](auto& in, const json& a) { return in[0].select(a[0], a[1]); }},
      {"slice", [](auto& in, const json& a) { return in[0].slice(a[0], a[1], a[2], a[3]); }},
      {"unsqueeze", [](auto& in, const json& a) { return in[0].unsqueeze(a[0]); }},
      {"flatten", [](auto& in, const json& a) { return in[0].flatten(a[0], a[1]); }},
      {"cat", [](auto& in, const json& a) { return cat(in, a[0]); }},
      {"stack", [](auto& in, const json& a) { return stack(in, a[0]); }},
      {"add", [](auto& in, const json&) { return in[0] + in[1]; }},
      {"add_out", [](auto& in, const json&) { return add_out(in[0], in[1], in[2]); }},
      {"sum_dim", [](auto& in, const json& a) { return in[0].sum(dims_arg(a[0])); }},
      {"mm", [](auto& in, const json&) { return mm(in[0], in[1]); }},
  };
  return ops;
}

// What ember does with a case: its result's layout, or its error text.
struct Outcome {
  std::string message;  // empty: no error
  Dims sizes, strides;
  int64_t storage_offset = 0;
};

Outcome run(const json& c) {
  std::vector<Tensor> inputs;
  for (const json& spec : c["inputs"]) inputs.push_back(input_of(spec));
  try {
    const Tensor result = calls().at(c["op"].get<std::string>())(inputs, c["args"]);
    return {"", result.sizes(), result.strides(), result.storage_offset()};
  } catch (const Error& e) {
    return {e.what(), {}, {}, 0};
  }
}

Outcome torch_outcome(const json& c) {
  if (c.contains("message")) return {c["message"].get<std::string>(), {}, {}, 0};
  return {"", fixture::dims_arg(c["sizes"]), fixture::dims_arg(c["strides"]), c["storage_offset"].get<int64_t>()};
}

std::string describe(const Outcome& o) {
  if (!o.message.empty()) return "error \"" + o.message + "\"";
  return "sizes " + to_string(o.sizes) + ", strides " + to_string(o.strides) + ", offset " +
         std::to_string(o.storage_offset);
}

std::string difference(const Outcome& ember, const Outcome& wanted) {
  const bool same = ember.message == wanted.message && ember.sizes == wanted.sizes && ember.strides == wanted.strides &&
                    ember.storage_offset == wanted.storage_offset;
  return same ? "" : "ember: " + describe(ember) + "; expected: " + describe(wanted);
}

// The cases where ember answers otherwise than PyTorch 1.13, and what it answers. Each is a size
// PyTorch lets through because of how it computes it, never a text ember chose to word otherwise.
const std::string kNegative = "numel: integer multiplication overflow";  // a tensor never has a negative size
const std::map<std::string, Outcome>& deviations() {
  static const std::map<std::string, Outcome> differ = [] {
    std::map<std::string, Outcome> d;
    // PyTorch accepts a negative size when another size is 0 (c10 multiplies them as unsigned
    // numbers, and 0 times anything is 0): a tensor of sizes [-1, 0]. ember refuses any negative size.
    for (const char* name :
         {"resize_([-1, 0]) on ones([2])", "resize_([-1, 0]) on ones([3]).slice(0, 1, 3, 1)",
          "resize_([0, -1]) on ones([2])", "resize_([0, -1]) on ones([3]).slice(0, 1, 3, 1)",
          "expand([-1, 0]) on ones([])", "expand([0, -1]) on ones([])", "as_strided([-1, 0], [1, 1], 0) on ones([4])"})
      d[name] = {kNegative, {}, {}, 0};
    // reshape's size product wraps around to -2^63 in PyTorch and trips an internal assertion
    // ("Expected !is_symbolic() to be true"); ember's wraps the same way and gives view's text.
    for (const char* name : {"reshape([2^61, 4]) on ones([0])", "reshape([2^61, 4]) on ones([2, 0]).t()",
                             "reshape([4, 2^61]) on ones([0])", "reshape([4, 2^61]) on ones([2, 0]).t()"}) {
      const std::string shape = std::string(name).find("[2^61, 4]") != std::string::npos ? "[2305843009213693952, 4]"
                                                                                         : "[4, 2305843009213693952]";
      d[name] = {"shape '" + shape + "' is invalid for input of size 0", {}, {}, 0};
    }
    // A step of 2^63-1 makes PyTorch's slice length wrap to -1; ember rounds the length up
    // without overflow: one element, whose stride is never used (left unscaled, as it overflows).
    d["slice(1, 0, 3, 2^63-1) on ones([2, 3])"] = {"", {2, 1}, {3, 9223372036854775807}, 0};
    d["slice(0, 0, 2, 2^63-1) on ones([2, 3])"] = {"", {1, 3}, {3, 1}, 0};
    return d;
  }();
  return differ;
}

}  // namespace

TEST_CASE("huge and negative sizes into every factory, view and resize_ end as in PyTorch", "[size_overflow]") {
  const json& cases = fixture::load("size_sweep.json")["cases"];
  REQUIRE(cases.size() > 300);
  CapturedWarnings out_resized;  // add_out's resize warning: tests/test_resize_and_out.cpp checks its text
  const op_sweep::Report report = op_sweep::run_each(cases, [](const json& c) {
    const auto deviation = deviations().find(c["name"].get<std::string>());
    const Outcome ember = run(c);
    if (deviation == deviations().end()) return difference(ember, torch_outcome(c));
    if (difference(torch_outcome(c), deviation->second).empty()) return std::string("no longer differs from PyTorch");
    return difference(ember, deviation->second);
  });
  for (const std::string& failure : report.failures) FAIL_CHECK(failure);
  CHECK(report.checked == cases.size());
  for (const auto& deviation : deviations()) {  // no structured binding: the lambda captures the name (clang 14)
    const std::string& name = deviation.first;
    INFO(name);
    CHECK(std::count_if(cases.begin(), cases.end(), [&](const json& c) { return c["name"] == name; }) == 1);
  }
}

TEST_CASE("resize_ past int64's bytes refuses and leaves the tensor as it was, so no write lands out of bounds",
          "[size_overflow]") {
  // The repro: resize_ once gave these 2 floats' 8 bytes 2^62 elements, and the fill wrote
  // 2^26 bytes past them. PyTorch refuses with the same text (and, unlike ember, keeps the new sizes).
  Tensor t = ones({2});
  CHECK_THROWS_WITH(t.resize_({kHuge}), "Storage size calculation overflowed with sizes=[4611686018427387904]");
  CHECK(t.sizes() == Dims{2});
  CHECK(t.impl()->storage->nbytes == 8);
  CHECK_THROWS_AS(t.narrow(0, int64_t{1} << 24, 1).fill_(1), Error);
  CHECK(t.to_vector<float>() == std::vector<float>{1, 1});
}

TEST_CASE("as_strided refuses an offset whose bytes overflow, where PyTorch 1.13 wraps them and reads out of bounds",
          "[size_overflow]") {
  // torch.ones(4).as_strided((2,), (1,), 1 << 61) passes PyTorch's bounds check (2^61 * 4 bytes
  // wrap around to 0) and crashes when read; size_sweep.py leaves it out for that reason.
  const Tensor t = ones({4});
  for (int64_t offset : {int64_t{1} << 61, (int64_t{1} << 62) - 1, INT64_MAX})
    CHECK_THROWS_WITH(as_strided(t, {2}, {1}, offset), "Storage size calculation overflowed with sizes=[2] and "
                                                       "strides=[1]");
  // An empty view takes any offset, as in PyTorch, and a slice of it cannot move that offset past int64.
  const Tensor empty_view = as_strided(t, {0, 3}, {1, kHuge}, 0);
  CHECK(empty_view.numel() == 0);
  CHECK_THROWS_WITH(empty_view.select(1, 2), "Storage size calculation overflowed with sizes=[0, 3] and strides=[1, "
                                             "4611686018427387904]");
}
