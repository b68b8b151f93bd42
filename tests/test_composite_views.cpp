// The views PyTorch writes with other views (movedim, swapaxes, T, mT, unflatten, broadcast_to,
// broadcast_tensors, reshape_as, tensor_split, hsplit/vsplit/dsplit, atleast_nd), against
// PyTorch 1.13 (tests/fixtures/composite_views.json, tools/fixtures/composite_views.py): each
// output's values, strides, node and view-ness, the profile's events and the warning, and the
// texts of the calls PyTorch refuses.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "captured_warnings.h"
#include "fixture.h"
#include "view_cases.h"

using namespace ember;
using view_cases::arange_leaf;
using view_cases::collapsed;
using ViewOutputs = std::vector<Tensor>;

namespace {

const fixture::json& composite_views() { return fixture::load("composite_views.json"); }

// Each case's call, as the fixture's "code" makes it in Python; x is inputs[0], `other` an empty
// [4, 6] and `indices` the int64 tensor [1, 4].
using ViewCall = std::function<ViewOutputs(const std::vector<Tensor>&)>;
std::map<std::string, ViewCall> view_calls(const Tensor& other, const Tensor& indices) {
  auto one = [](auto f) { return ViewCall([f](const std::vector<Tensor>& in) { return ViewOutputs{f(in[0])}; }); };
  auto many = [](auto f) { return ViewCall([f](const std::vector<Tensor>& in) { return f(in[0]); }); };
  return {
      {"T_3d_warns", one([](const Tensor& x) { return x.T(); })},
      {"narrow", one([](const Tensor& x) { return x.narrow(1, 1, 2); })},
      {"narrow_negative_start", one([](const Tensor& x) { return x.narrow(0, -3, 2); })},
      {"movedim_int", one([](const Tensor& x) { return movedim(x, 0, 2); })},
      {"movedim_tuple", one([](const Tensor& x) {
         return x.movedim({0, 1}, {2, 0});
       })},
      {"movedim_negative", one([](const Tensor& x) { return x.movedim(-1, 0); })},
      {"moveaxis", one([](const Tensor& x) { return moveaxis(x, 0, -1); })},
      {"swapaxes", one([](const Tensor& x) { return x.swapaxes(0, 1); })},
      {"swapdims", one([](const Tensor& x) { return swapdims(x, 0, 2); })},
      {"T_2d", one([](const Tensor& x) { return x.T(); })},
      {"mT_3d", one([](const Tensor& x) { return x.mT(); })},
      {"unflatten", one([](const Tensor& x) {
         return x.unflatten(2, {2, 2});
       })},
      {"unflatten_inferred", one([](const Tensor& x) {
         return x.unflatten(1, {3, -1});
       })},
      {"broadcast_to", one([](const Tensor& x) {
         return x.broadcast_to({2, 3, 4});
       })},
      {"broadcast_to_same", one([](const Tensor& x) {
         return broadcast_to(x, {2, 3});
       })},
      {"reshape_as", one([other](const Tensor& x) { return x.reshape_as(other); })},
      {"tensor_split_sections", many([](const Tensor& x) { return tensor_split(x, 3, 1); })},
      {"tensor_split_indices", many([](const Tensor& x) {
         return tensor_split(x, std::vector<int64_t>{1, 3}, 2);
       })},
      {"tensor_split_tensor_indices", many([indices](const Tensor& x) { return tensor_split(x, indices); })},
      {"tensor_split_more_sections_than_elements", many([](const Tensor& x) { return tensor_split(x, 3); })},
      {"hsplit_1d", many([](const Tensor& x) { return hsplit(x, 3); })},
      {"hsplit_indices", many([](const Tensor& x) { return hsplit(x, std::vector<int64_t>{1}); })},
      {"vsplit", many([](const Tensor& x) { return vsplit(x, 2); })},
      {"dsplit", many([](const Tensor& x) {
         return dsplit(x, std::vector<int64_t>{1, 3});
       })},
      {"atleast_1d_0d", one([](const Tensor& x) { return atleast_1d(x); })},
      {"atleast_1d_enough", one([](const Tensor& x) { return atleast_1d(x); })},
      {"atleast_2d_1d", one([](const Tensor& x) { return atleast_2d(x); })},
      {"atleast_3d_1d", one([](const Tensor& x) { return atleast_3d(x); })},
      {"atleast_3d_2d", one([](const Tensor& x) { return atleast_3d(x); })},
      {"atleast_3d_0d", one([](const Tensor& x) { return atleast_3d(x); })},
      {"broadcast_tensors", [](const std::vector<Tensor>& in) { return broadcast_tensors(in); }},
      {"atleast_2d_list", [](const std::vector<Tensor>& in) { return atleast_2d(in); }},
  };
}

}  // namespace

TEST_CASE("each view written with other views gives PyTorch's values, nodes, views and events",
          "[views][composite-views]") {
  set_warn_always(true);  // T's warning is PyTorch's TORCH_WARN_ONCE: each case sees its own
  const Tensor other = empty({4, 6}), indices = from_vector(std::vector<int64_t>{1, 4}, {2});
  const std::map<std::string, ViewCall> call_of = view_calls(other, indices);
  for (const auto& c : composite_views()["cases"]) {
    const std::string name = c["name"];
    INFO(name << ": " << c["code"].get<std::string>());
    std::vector<Tensor> inputs;
    if (c.contains("inputs")) {
      for (const auto& sizes : c["inputs"]) inputs.push_back(arange_leaf(fixture::dims_arg(sizes)));
    } else {
      inputs.push_back(arange_leaf(fixture::dims_arg(c["input"])));
    }
    REQUIRE(call_of.count(name) == 1);
    CapturedWarnings warnings;
    ViewOutputs outputs;
    std::vector<std::string> events;
    {
      profiler::Profiler profile;
      outputs = call_of.at(name)(inputs);
      profile.stop();
      for (const profiler::Event& event : profile.events().events()) events.push_back(event.name);
    }
    CHECK(collapsed(events) == collapsed(c["events"].get<std::vector<std::string>>()));
    if (c["warning"].is_null()) CHECK(warnings.texts.empty());
    else CHECK(warnings.texts == std::vector<std::string>{c["warning"].get<std::string>()});
    const Tensor& x = inputs[0];
    view_cases::check_outputs(outputs, c["outputs"], x);
  }
  set_warn_always(false);
}

TEST_CASE("narrow takes its start as a 0-dim integer tensor too", "[views][composite-views]") {
  const Tensor x = arange(6, kFloat32);
  CHECK(equal(x.narrow(0, scalar_tensor(2, kInt64), 3), x.narrow(0, 2, 3)));
}

TEST_CASE("a view written with other views passes the gradient back to its input", "[views][composite-views]") {
  Tensor x = arange_leaf({2, 3, 4});
  (x.movedim(0, 2) * 2).sum().backward();
  CHECK(equal(x.grad(), full({2, 3, 4}, 2.0)));
  Tensor y = arange_leaf({2, 7});
  std::vector<Tensor> pieces = tensor_split(y, 3, 1);
  (pieces[1] * 3).sum().backward();  // only the middle piece's columns (3 and 4) get a gradient
  CHECK(y.grad().select(1, 3).sum().item<float>() == 6.0f);
  CHECK(y.grad().sum().item<float>() == 12.0f);
}

TEST_CASE("the views written with other views refuse bad arguments with PyTorch's texts", "[views][errors]") {
  std::map<std::string, std::string> texts;
  for (const auto& e : composite_views()["errors"]) texts[e["name"]] = e["message"];
  const Tensor t234 = ones({2, 3, 4}), t23 = ones({2, 3}), scalar = scalar_tensor(1.0);
  CHECK_THROWS_WITH(ones({3}).narrow(0, scalar_tensor(0.0), 1), texts["narrow_float_start"]);
  CHECK_THROWS_WITH(ones({3}).narrow(0, from_vector(std::vector<int64_t>{0}, {1}), 1), texts["narrow_1d_start"]);
  CHECK_THROWS_WITH(ones({3}).narrow(0, 2, 2), texts["narrow_past_the_end"]);
  CHECK_THROWS_WITH(movedim(t234, {0, 1}, {1}), texts["movedim_count_mismatch"]);
  CHECK_THROWS_WITH(movedim(t234, {0, 0}, {1, 2}), texts["movedim_repeated_source"]);
  CHECK_THROWS_WITH(movedim(t234, {0, 1}, {2, 2}), texts["movedim_repeated_destination"]);
  CHECK_THROWS_AS(movedim(t234, 3, 0), IndexError);
  CHECK_THROWS_WITH(movedim(t234, 3, 0), texts["movedim_out_of_range"]);
  CHECK_THROWS_WITH(t234.swapaxes(0, 3), texts["swapaxes_out_of_range"]);
  CHECK_THROWS_WITH(ones({3}).mT(), texts["mT_1d"]);
  CHECK_THROWS_WITH(t234.unflatten(2, {3, 2}), texts["unflatten_wrong_product"]);
  CHECK_THROWS_WITH(t234.unflatten(2, Dims()), texts["unflatten_empty_sizes"]);
  CHECK_THROWS_WITH(t234.unflatten(2, {-1, -1}), texts["unflatten_two_inferred"]);
  CHECK_THROWS_WITH(t234.broadcast_to({3, 4}), texts["broadcast_to_fewer_dims"]);
  CHECK_THROWS_WITH(broadcast_tensors({t23, ones({4})}), texts["broadcast_tensors_mismatch"]);
  CHECK_THROWS_WITH(t23.reshape_as(ones({5})), texts["reshape_as_wrong_numel"]);
  CHECK_THROWS_WITH(tensor_split(scalar, 2), texts["tensor_split_0d"]);
  CHECK_THROWS_WITH(tensor_split(t23, 0, 1), texts["tensor_split_zero_sections"]);
  CHECK_THROWS_WITH(tensor_split(t23, tensor({1.5}), 1), texts["tensor_split_float_tensor"]);
  CHECK_THROWS_WITH(tensor_split(t23, from_vector(std::vector<int64_t>{1}, {1, 1}), 1),
                    texts["tensor_split_2d_tensor"]);
  CHECK_THROWS_WITH(hsplit(scalar, 1), texts["hsplit_0d"]);
  CHECK_THROWS_WITH(hsplit(t23, 2), texts["hsplit_not_divisible"]);
  CHECK_THROWS_WITH(hsplit(t23, 0), texts["hsplit_zero"]);
  CHECK_THROWS_WITH(vsplit(ones({4}), 2), texts["vsplit_1d"]);
  CHECK_THROWS_WITH(dsplit(t23, 1), texts["dsplit_2d"]);
  CHECK_THROWS_WITH(dsplit(t234, 3), texts["dsplit_not_divisible"]);
  CHECK(texts.size() == 25);  // every refused call of the fixture is asserted above
}
