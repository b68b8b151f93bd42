// unfold, the *_copy ops, set_, resize_as_ and t.storage(), against PyTorch 1.13
// (tests/fixtures/views_more.json, tools/fixtures/views_more.py): each call's outputs (values,
// strides, node, view-ness, storage), its profile, the gradient it passes back, and the texts of
// the calls PyTorch refuses. The Python door is python/tests/test_views_more.py.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "fixture.h"
#include "view_cases.h"

using namespace ember;
using CallOutputs = std::vector<Tensor>;

namespace {

const fixture::json& views_more() { return fixture::load("views_more.json"); }

// Each case's call, as the fixture's "code" makes it in Python.
using CaseCall = std::function<CallOutputs(const Tensor&)>;
std::map<std::string, CaseCall> calls_of_views_more() {
  auto one = [](auto f) { return CaseCall([f](const Tensor& x) { return CallOutputs{f(x)}; }); };
  return {
      {"unfold_1d_overlapping", one([](const Tensor& x) { return x.unfold(0, 3, 2); })},
      {"unfold_3d_middle", one([](const Tensor& x) { return x.unfold(1, 2, 1); })},
      {"unfold_3d_last_negative_dim", one([](const Tensor& x) { return x.unfold(-1, 4, 3); })},
      {"unfold_gaps", one([](const Tensor& x) { return x.unfold(0, 2, 3); })},
      {"unfold_size_0", one([](const Tensor& x) { return x.unfold(1, 0, 1); })},
      {"unfold_0d", one([](const Tensor& x) { return x.unfold(0, 1, 1); })},
      {"unfold_0d_size_0", one([](const Tensor& x) { return x.unfold(-1, 0, 1); })},
      {"unfold_transposed", one([](const Tensor& x) { return x.t().unfold(1, 2, 1); })},
      {"unfold_empty", one([](const Tensor& x) { return x.unfold(0, 0, 1); })},
      {"expand_copy", one([](const Tensor& x) {
         return expand_copy(x, {2, 3, 4});
       })},
      {"permute_copy", one([](const Tensor& x) {
         return permute_copy(x, {2, 0, 1});
       })},
      {"view_copy", one([](const Tensor& x) {
         return view_copy(x, {3, 4});
       })},
      {"select_copy", one([](const Tensor& x) { return select_copy(x, 1, -1); })},
      {"slice_copy", one([](const Tensor& x) { return slice_copy(x, 1, 1, 5, 2); })},
      {"slice_copy_default_bounds", one([](const Tensor& x) { return slice_copy(x, 0, 0, INT64_MAX, 2); })},
      {"transpose_copy", one([](const Tensor& x) { return transpose_copy(x, 0, 2); })},
      {"t_copy", one([](const Tensor& x) { return t_copy(x); })},
      {"squeeze_copy", one([](const Tensor& x) { return squeeze_copy(x); })},
      {"squeeze_copy_dim", one([](const Tensor& x) { return squeeze_copy(x, 2); })},
      {"unsqueeze_copy", one([](const Tensor& x) { return unsqueeze_copy(x, 1); })},
      {"diagonal_copy", one([](const Tensor& x) { return diagonal_copy(x, 1); })},
      {"as_strided_copy", one([](const Tensor& x) {
         return as_strided_copy(x, {2, 2}, {1, 4}, 1);
       })},
      {"alias_copy", one([](const Tensor& x) { return alias_copy(x); })},
      {"view_copy_dtype", one([](const Tensor& x) { return view_copy(x, kInt32); })},
      {"reshape_alias_copy", one([](const Tensor& x) {
         return _reshape_alias_copy(x, {4, 3}, {3, 1});
       })},
      {"narrow_copy", one([](const Tensor& x) { return narrow_copy(x, 1, 1, 2); })},
      {"narrow_copy_method", one([](const Tensor& x) { return narrow_copy(x, 0, -3, 2); })},
      {"detach_copy", one([](const Tensor& x) { return detach_copy(x); })},
      {"unfold_copy", one([](const Tensor& x) { return unfold_copy(x, 0, 3, 2); })},
      {"unbind_copy", [](const Tensor& x) { return unbind_copy(x, 1); }},
      {"split_copy", [](const Tensor& x) { return split_copy(x, 2); }},
      {"split_with_sizes_copy",
       [](const Tensor& x) {
         return split_with_sizes_copy(x, {1, 4}, 1);
       }},
  };
}

// The names of the events `f` records.
std::vector<std::string> events_of(const std::function<void()>& f) {
  profiler::Profiler profile;
  f();
  profile.stop();
  std::vector<std::string> names;
  for (const profiler::Event& event : profile.events().events()) names.push_back(event.name);
  return names;
}

// The gradient the fixture records: backward of sum(out * arange(out.numel()).view_as(out)).
void weighted_backward(const CallOutputs& outputs) {
  Tensor total = zeros({});
  for (const Tensor& out : outputs) total = total + (out * arange(out.numel(), kFloat32).reshape(out.sizes())).sum();
  total.backward();
}

// A matrix's rows (t.tolist()), one after another.
std::vector<float> rows_of(const fixture::json& rows) {
  std::vector<float> values;
  for (const auto& row : rows)
    for (const auto& value : row) values.push_back(value.get<float>());
  return values;
}

}  // namespace

TEST_CASE("unfold and the *_copy ops give PyTorch's values, layouts, nodes, events and gradients",
          "[views][views-more]") {
  const std::map<std::string, CaseCall> call_of = calls_of_views_more();
  REQUIRE(call_of.size() == views_more()["cases"].size());
  for (const auto& c : views_more()["cases"]) {
    const std::string name = c["name"];
    INFO(name << ": " << c["code"].get<std::string>());
    REQUIRE(call_of.count(name) == 1);
    const Tensor x = view_cases::arange_leaf(fixture::dims_arg(c["input"]));
    CallOutputs outputs;
    const std::vector<std::string> events = events_of([&] { outputs = call_of.at(name)(x); });
    CHECK(view_cases::collapsed(events) == view_cases::collapsed(c["events"].get<std::vector<std::string>>()));
    view_cases::check_outputs(outputs, c["outputs"], x);
    for (size_t i = 0; i < outputs.size(); ++i)
      CHECK(outputs[i].storage().is_alias_of(x.storage()) == c["outputs"][i]["shares_storage"].get<bool>());
    if (c["backward_error"].is_null()) {
      weighted_backward(outputs);
      CHECK(fixture::compare_exact(x.grad(), c["grad"]) == "");
    } else {
      CHECK_THROWS_WITH(weighted_backward(outputs), c["backward_error"].get<std::string>());
    }
  }
}

TEST_CASE("unfold and the *_copy ops refuse bad arguments with PyTorch's texts", "[views][errors]") {
  std::map<std::string, std::string> texts;
  for (const auto& e : views_more()["errors"]) texts[e["name"]] = e["message"];
  const Tensor eight = ones({8}), scalar = scalar_tensor(5.0);
  CHECK_THROWS_WITH(eight.unfold(0, 9, 1), texts["unfold_size_too_big"]);
  CHECK_THROWS_WITH(eight.unfold(0, 3, 0), texts["unfold_step_0"]);
  CHECK_THROWS_WITH(eight.unfold(0, 3, -1), texts["unfold_step_negative"]);
  CHECK_THROWS_WITH(eight.unfold(0, -1, 1), texts["unfold_size_negative"]);
  CHECK_THROWS_AS(eight.unfold(1, 3, 1), IndexError);
  CHECK_THROWS_WITH(eight.unfold(1, 3, 1), texts["unfold_dim_out_of_range"]);
  CHECK_THROWS_AS(ones({2, 3}).unfold(-3, 1, 1), IndexError);
  CHECK_THROWS_WITH(ones({2, 3}).unfold(-3, 1, 1), texts["unfold_negative_dim_out_of_range"]);
  CHECK_THROWS_WITH(scalar.unfold(0, 2, 1), texts["unfold_0d_size_2"]);
  CHECK_THROWS_WITH(scalar.unfold(1, 1, 1), texts["unfold_0d_dim_1"]);
  CHECK_THROWS_AS(select_copy(ones({2, 3}), 1, 3), IndexError);
  CHECK_THROWS_WITH(select_copy(ones({2, 3}), 1, 3), texts["select_copy_out_of_range"]);
  CHECK_THROWS_WITH(expand_copy(ones({2, 3}), {4, 3}), texts["expand_copy_mismatch"]);
}

TEST_CASE("set_ puts a tensor over another's storage, with its own version counter", "[views][set]") {
  const auto& expected = views_more()["set"];
  Tensor a = zeros({2, 3}), b = arange(4, kFloat32);
  Tensor* returned = nullptr;
  const std::vector<std::string> events = events_of([&] { returned = &a.set_(b); });
  CHECK(returned == &a);
  const auto& after_set = expected["after_set"];
  CHECK(events == after_set["events"].get<std::vector<std::string>>());
  CHECK(a.sizes() == fixture::dims_arg(after_set["shape"]));
  CHECK(a.strides() == fixture::dims_arg(after_set["strides"]));
  CHECK((a.raw_data() == b.raw_data()) == after_set["same_data"].get<bool>());
  CHECK(std::vector<uint32_t>{a._version(), b._version()} == after_set["versions"].get<std::vector<uint32_t>>());
  CHECK(a._is_view() == after_set["is_view"].get<bool>());
  b.add_(1);
  CHECK(a.to_vector<float>() == expected["after_b"]["a"].get<std::vector<float>>());
  CHECK(std::vector<uint32_t>{a._version(), b._version()} ==
        expected["after_b"]["versions"].get<std::vector<uint32_t>>());
  a.add_(1);
  CHECK(b.to_vector<float>() == expected["after_a"]["b"].get<std::vector<float>>());
  CHECK(std::vector<uint32_t>{a._version(), b._version()} ==
        expected["after_a"]["versions"].get<std::vector<uint32_t>>());
}

TEST_CASE("set_ of a storage takes its layout as given, growing the storage to reach it", "[views][set]") {
  const auto& expected = views_more()["set"];
  Tensor c = zeros({2});
  c.set_();
  CHECK(c.sizes() == fixture::dims_arg(expected["emptied"]["shape"]));
  CHECK(c.strides() == fixture::dims_arg(expected["emptied"]["strides"]));
  CHECK(c._version() == expected["emptied"]["version"].get<uint32_t>());
  CHECK(c.storage().nbytes() == expected["emptied"]["storage_nbytes"].get<int64_t>());
  const StorageHandle s = arange(10, kFloat32).storage();
  Tensor d = zeros({3});
  d.set_(s);
  CHECK(d.sizes() == fixture::dims_arg(expected["whole"]["shape"]));
  CHECK(d.storage_offset() == expected["whole"]["offset"].get<int64_t>());
  d.set_(s, 2, {2, 3}, {1, 2});
  CHECK(d.to_vector<float>() == rows_of(expected["strided"]["value"]));
  CHECK(d.storage_offset() == expected["strided"]["offset"].get<int64_t>());
  CHECK(d._version() == expected["strided"]["version"].get<uint32_t>());
  d.set_(s, 1, {2, 2});
  CHECK(d.strides() == fixture::dims_arg(expected["contiguous"]["strides"]));
  CHECK(d.to_vector<float>() == rows_of(expected["contiguous"]["value"]));
  Tensor e = zeros({1});
  e.set_(s, 8, {2, 3}, {1, 2});
  CHECK(s.nbytes() == expected["grown"]["storage_nbytes"].get<int64_t>());
  CHECK(e.select(1, 0).to_vector<float>() == expected["grown"]["first_column"].get<std::vector<float>>());
}

TEST_CASE("set_ records no derivative: backward through it fails as in PyTorch", "[views][set]") {
  const auto& recorded = views_more()["set"]["recorded"];
  Tensor g = zeros({2});
  g.set_(ones({3}, Options().requires_grad()));
  CHECK(g.grad_fn()->name() == recorded["grad_fn"].get<std::string>());
  CHECK(g.requires_grad() == recorded["requires_grad"].get<bool>());
  CHECK_THROWS_WITH(g.sum().backward(), recorded["backward_error"].get<std::string>());
  Tensor leaf = zeros({2}, Options().requires_grad());
  {
    NoGradGuard no_grad;
    leaf.set_(ones({3}));
  }
  const auto& under_no_grad = views_more()["set"]["under_no_grad"];
  CHECK(leaf.sizes() == fixture::dims_arg(under_no_grad["shape"]));
  CHECK(leaf.is_leaf() == under_no_grad["is_leaf"].get<bool>());
  CHECK(leaf.requires_grad() == under_no_grad["requires_grad"].get<bool>());
}

TEST_CASE("set_ and resize_as_ refuse with PyTorch's texts", "[views][set][errors]") {
  std::map<std::string, std::string> texts;
  for (const auto& e : views_more()["errors"]) texts[e["name"]] = e["message"];
  const StorageHandle s = arange(10, kFloat32).storage();
  CHECK_THROWS_WITH(zeros({2}, Options().requires_grad()).set_(ones({3})), texts["set_leaf_requiring_grad"]);
  CHECK_THROWS_WITH(zeros({2}, Options().requires_grad()).set_(), texts["set_empty_leaf_requiring_grad"]);
  CHECK_THROWS_WITH(zeros({3}).set_(s, -1, {2}, {1}), texts["set_negative_offset"]);
  CHECK_THROWS_WITH(zeros({3}).set_(s, 0, {2, 3}, {1}), texts["set_sizes_strides_mismatch"]);
  CHECK_THROWS_WITH(zeros({2}, Options().requires_grad()).resize_as_(ones({3})), texts["resize_as_requiring_grad"]);
  CHECK_THROWS_WITH(zeros({2}, Options().requires_grad()).resize_as_(ones({2})),
                    texts["resize_as_requiring_grad_same_sizes"]);
  // PyTorch's Python door asserts internally on another dtype (libtorch's would read the bytes as
  // this tensor's); ember refuses with a text of its own.
  CHECK_THROWS_WITH(zeros({2}).set_(arange(3, kInt64)), "set_: expected a source tensor of dtype Float, but got Long");
  CHECK_THROWS_WITH(zeros({2}).set_(zeros({2}, checked_device()).storage()),
                    "Attempted to set the storage of a tensor on device \"cpu\" to a storage on different device "
                    "\"checked:0\".  This is no longer allowed; the devices must match.");
}

TEST_CASE("resize_as_ takes another tensor's sizes, contiguous, without a version bump", "[views][resize]") {
  const auto& expected = views_more()["resize_as"];
  Tensor a = zeros({2, 3});
  const Tensor other = ones({3, 2}).t();
  const std::vector<std::string> events = events_of([&] { a.resize_as_(other); });
  const std::vector<std::string> fixture_events = expected["smaller"]["events"];
  CHECK(events == std::vector<std::string>(fixture_events.end() - 2, fixture_events.end()));
  CHECK(a.sizes() == fixture::dims_arg(expected["smaller"]["shape"]));
  CHECK(a.strides() == fixture::dims_arg(expected["smaller"]["strides"]));
  CHECK(a._version() == expected["smaller"]["version"].get<uint32_t>());
  Tensor b = zeros({2, 3});
  resize_as_(b, ones({4, 4}));
  CHECK(b.strides() == fixture::dims_arg(expected["grown"]["strides"]));
  CHECK(b.storage().nbytes() == expected["grown"]["storage_nbytes"].get<int64_t>());
  Tensor c = zeros({4, 4}).t();
  CHECK(c.resize_as_(ones({4, 4})).strides() == fixture::dims_arg(expected["same_sizes"]["strides"]));
  Tensor d = zeros({2});
  CHECK(&resize_as_(d, arange(5, kInt64)) == &d);
  CHECK(d.sizes() == fixture::dims_arg(expected["other_dtype"]["shape"]));
  CHECK(d.dtype() == kFloat32);
}

TEST_CASE("t.storage() is the storage a tensor and its views share, as libtorch's", "[views][storage]") {
  const auto& expected = fixture::load("composite_views.json")["storage"];
  const Tensor t = arange(6, kFloat32).reshape({2, 3});
  const StorageHandle s = t.storage();
  CHECK((s.is_alias_of(t.select(0, 1).storage()) && s.is_alias_of(t.t().storage())) ==
        expected["views_share"].get<bool>());
  CHECK(t.select(0, 1).storage().unsafeGetStorageImpl() == s.unsafeGetStorageImpl());
  CHECK(t.clone().storage().is_alias_of(s) == expected["clone_shares"].get<bool>());
  CHECK(s.nbytes() == expected["nbytes"].get<int64_t>());
  CHECK(static_cast<char*>(t.select(0, 1).raw_data()) - static_cast<char*>(s.data()) ==
        expected["view_offset_bytes"].get<int64_t>());
  CHECK(s.device() == kCPU);
  CHECK(s.resizable());
  const long holders = s.use_count();
  {
    const StorageHandle another = t.t().storage();  // the transposed view is gone, the handle holds it
    CHECK(s.use_count() == holders + 1);
  }
  CHECK(s.use_count() == holders);
}
