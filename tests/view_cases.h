// What the tests of the view fixtures share (test_composite_views.cpp, test_views_more.cpp): the
// input their scripts make, the profile's event names as PyTorch's and ember's can be compared, and
// the check of a call's outputs against the fields the scripts record.
#pragma once
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ember.h"
#include "fixture.h"

namespace view_cases {

// A case's input: arange(n) with the case's sizes, a leaf that requires grad and is no view.
inline ember::Tensor arange_leaf(const ember::Dims& sizes) {
  return ember::arange(ember::product(sizes), ember::kFloat32).reshape(sizes).clone().requires_grad_();
}

// Event names in start order, a name repeated at once kept once: PyTorch records an op that
// forwards to its other overload twice (torch.movedim(x, -1, 0): aten::movedim > aten::movedim,
// not on every call), ember once.
inline std::vector<std::string> collapsed(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names)
    if (out.empty() || out.back() != name) out.push_back(name);
  return out;
}

// Each output's values, strides, node and view-ness, and whether it is x's view or x itself.
inline void check_outputs(const std::vector<ember::Tensor>& outputs, const fixture::json& expected_outputs,
                          const ember::Tensor& x) {
  REQUIRE(outputs.size() == expected_outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const fixture::json& expected = expected_outputs[i];
    const ember::Tensor& out = outputs[i];
    INFO("output " << i);
    CHECK(fixture::compare_exact(out.detach(), expected["value"]) == "");
    CHECK(out.strides() == fixture::dims_arg(expected["strides"]));
    CHECK((out.grad_fn() ? out.grad_fn()->name() : "NoneType") == expected["grad_fn"].get<std::string>());
    CHECK(out._is_view() == expected["is_view"].get<bool>());
    CHECK(out._base().is_same(x) == expected["base_is_x"].get<bool>());
    CHECK(out.is_same(x) == expected["same_as_x"].get<bool>());
  }
}

}  // namespace view_cases
