// Edge cases issue 21's second differential fuzz found ember answering otherwise than PyTorch 1.13:
// silent wrong values and flags, valid calls refused, invalid calls accepted. Every expected value,
// flag and text is PyTorch's (tests/fixtures/fidelity.json, tools/fixtures/fidelity_edges.py).
#include <catch2/catch.hpp>

#include <optional>

#include "fidelity_fixture.h"

using namespace ember;
using fidelity::bools;
using fidelity::case_named;
using fidelity::output;

namespace {}  // namespace

TEST_CASE("add of bools casts alpha to bool, so any non-zero alpha adds", "[fidelity][edges]") {
  CHECK(fixture::compare(add(bools({true, false}), bools({true, false}), -1), output("add_bool_alpha_negative")) ==
        "");  // was [False, False]: -1 * 1 + 1 computed in int64
  CHECK(fixture::compare(add(bools({true, false}), bools({true, true}), 0), output("add_bool_alpha_zero")) == "");
  Tensor self = bools({false, true});
  self.add_(bools({true, false}), -1);
  CHECK(fixture::compare(self, output("add_inplace_bool_alpha_negative")) == "");
}

TEST_CASE("matmul of a vector and a matrix squeezes its product in place: no view, version 1", "[fidelity][edges]") {
  const fixture::json& expected = case_named("matmul_1d_2d_node");
  const Tensor y = matmul(ones({3}, Options().requires_grad()), ones({3, 2}));
  CHECK(y.grad_fn()->name() == expected["grad_fn"].get<std::string>());
  CHECK(y._is_view() == expected["is_view"].get<bool>());
  CHECK(y._version() == expected["version"].get<uint32_t>());
}

TEST_CASE("matmul of a vector and a matrix under no_grad can then be written in place with grad", "[fidelity][edges]") {
  // Its result was a view of an internal product, so the write raised the no_grad-view error.
  const fixture::json& expected = case_named("matmul_1d_2d_no_grad");
  Tensor y;
  {
    NoGradGuard no_grad;
    y = matmul(ones({3}), ones({3, 2}));
  }
  CHECK(y._is_view() == expected["is_view"].get<bool>());
  CHECK(y._version() == expected["version"].get<uint32_t>());
  y.mul_(ones({2}, Options().requires_grad()));
  CHECK(y.grad_fn()->name() == expected["grad_fn_after_mul_"].get<std::string>());
}

TEST_CASE("an out= that requires grad is resized under no_grad and inference mode", "[fidelity][edges][resize]") {
  // Was refused with resize_'s "cannot resize variables that require grad": out= resizes below autograd.
  for (const std::string mode : {"no_grad", "inference_mode"}) {
    INFO(mode);
    const fixture::json& expected = case_named("out_resized_under_" + mode);
    Tensor out = ones({2}, Options().requires_grad());
    {
      NoGradGuard no_grad;
      std::optional<InferenceMode> inference;
      if (mode == "inference_mode") inference.emplace();
      add_out(out, ones({3}), ones({3}));
    }
    CHECK(fixture::compare(out.detach(), expected["output"]) == "");
    CHECK(out.requires_grad() == expected["requires_grad"].get<bool>());
  }
}

TEST_CASE("resize_ refuses a tensor that requires grad, except in inference mode", "[fidelity][edges][resize]") {
  CHECK_THROWS_WITH(ones({2}, Options().requires_grad()).resize_({4}), case_named("resize_grad_mode")["message"]);
  Tensor t = ones({2}, Options().requires_grad());
  {
    InferenceMode inference;
    t.resize_({4});
  }
  CHECK(t.sizes() == fidelity::dims_of(case_named("resize_in_inference_mode")["shape"]));
}

TEST_CASE("mm_out and matmul_out are not autocast: float32 operands write a float32 out", "[fidelity][edges][resize]") {
  Tensor out = ones({2, 2});
  AutocastGuard autocast(DeviceType::CPU, kBFloat16);
  mm_out(out, full({2, 2}, 1.5), full({2, 2}, 1.25));  // was "Expected out tensor to have dtype float"
  CHECK(fixture::compare(out, output("mm_out_in_autocast")) == "");
  out.fill_(0);
  matmul_out(out, full({2, 2}, 1.5), full({2, 2}, 1.25));
  CHECK(fixture::compare(out, output("matmul_out_in_autocast")) == "");
}

TEST_CASE("copy_ into an integer view made under no_grad takes a source that requires grad", "[fidelity][edges]") {
  // An integer self can have no gradient, so copy_ applies no autograd rule (was the no_grad-view error).
  const fixture::json& expected = case_named("copy_into_integer_no_grad_view");
  Tensor base = zeros({4}, kInt64), view;
  {
    NoGradGuard no_grad;
    view = base.narrow(0, 1, 2);
  }
  view.copy_(full({2}, 3.0, Options().requires_grad()));
  CHECK(fixture::compare(base, expected["output"]) == "");
  CHECK(view.requires_grad() == expected["requires_grad"].get<bool>());
}

TEST_CASE("cat of legacy empty tensors alone checks no dim", "[fidelity][edges]") {
  CHECK(fixture::compare(cat({ones({0})}, -2), output("cat_legacy_empty_dim_minus_2")) == "");
  CHECK(fixture::compare(cat({ones({0}), ones({0}, kFloat64)}, 5), output("cat_legacy_empties_mixed")) == "");
  CHECK_THROWS_WITH(cat({ones({0}), ones({2, 3})}, -3), case_named("cat_legacy_empty_then_matrix")["message"]);
  const Tensor x = ones({0}, Options().requires_grad());
  cat({x}, -2).sum().backward();
  CHECK(x.grad().sizes() == Dims{0});
}

TEST_CASE("bmm with nothing to multiply checks no dtype and has batch2's dtype", "[fidelity][edges]") {
  CHECK(fixture::compare(bmm(ones({1, 2, 0}, kBool), ones({1, 0, 4})), output("bmm_empty_inner_mixed")) == "");
  CHECK(fixture::compare(bmm(ones({0, 2, 3}), ones({0, 3, 4}, kFloat64)), output("bmm_empty_batch_mixed")) == "");
  CHECK_THROWS_WITH(bmm(ones({1, 2, 1}), ones({1, 1, 4}, kFloat64)), case_named("bmm_mixed")["message"]);
  CHECK(fixture::compare(matmul(ones({2, 2, 0}), ones({2, 0, 4}, kFloat64)), output("matmul_3d_empty_inner_mixed")) ==
        "");
}

TEST_CASE("in-place ops write an empty tensor whatever its strides", "[fidelity][edges]") {
  Tensor t = ones({1, 0}).expand({3, 0});  // strides (0, 1): was "more than one element ... refers to"
  t.add_(1);
  t.mul_(ones({3, 0}));
  t.zero_();
  t.fill_(2);
  CHECK(t.sizes() == fidelity::dims_of(case_named("inplace_on_empty_zero_stride")["shape"]));
}

TEST_CASE("copy_ of a tensor onto itself returns at once, even expanded", "[fidelity][edges]") {
  Tensor t = arange(3.0).expand({2, 3});
  t.copy_(t);
  CHECK(fixture::compare(t, output("copy_expanded_onto_itself")) == "");
  CHECK_THROWS_WITH(arange(3.0).expand({2, 3}).add_(1), case_named("add_expanded_in_place")["message"]);
}

TEST_CASE("a no_grad view whose base came to require grad through another view is refused", "[fidelity][edges]") {
  // The base is written with grad mode on through a second view (CopySlices): the view made under
  // no_grad can then be neither written in place nor asked for its grad_fn.
  Tensor base = zeros({4}), no_grad_view;
  {
    NoGradGuard no_grad;
    no_grad_view = base.narrow(0, 0, 2);
  }
  base.narrow(0, 2, 2).copy_(ones({2}, Options().requires_grad()));
  CHECK_THROWS_WITH(no_grad_view.mul_(full({}, 2.0)),
                    case_named("inplace_on_no_grad_view_of_base_written_with_grad")["message"]);
  CHECK_THROWS_WITH(no_grad_view.grad_fn(), case_named("grad_fn_of_no_grad_view_of_base_written_with_grad")["message"]);
}

TEST_CASE("an out= that partly overlaps an input is refused with PyTorch's text", "[fidelity][edges][resize]") {
  Tensor a = arange(8.0);
  Tensor out = a.narrow(0, 1, 3);
  CHECK_THROWS_WITH(add_out(out, a.narrow(0, 0, 3), ones({3})),
                    case_named("add_out_partly_overlapping_input")["message"]);
  CHECK_THROWS_WITH(mul_out(out, ones({3}), a.narrow(0, 2, 3)),
                    case_named("mul_out_partly_overlapping_other")["message"]);
  Tensor whole = arange(8.0);
  CHECK_THROWS_WITH(add_out(whole, whole.view({8, 1}), whole), case_named("add_out_same_bytes_other_shape")["message"]);
  Tensor same = arange(3.0);
  add_out(same, same, ones({3}));  // out is the input itself: allowed
  CHECK(fixture::compare(same, output("add_out_is_input")) == "");
}

TEST_CASE("bmm and mv of bools are refused with their own kernels' names, after the empty cases", "[fidelity][edges]") {
  auto message = [](const std::string& name) { return case_named(name)["message"].get<std::string>(); };
  CHECK_THROWS_WITH(bmm(ones({1, 2, 3}, kBool), ones({1, 3, 2}, kBool)), message("bmm_bool"));  // was addmm_impl_cpu_
  CHECK_THROWS_WITH(bmm(ones({1, 2, 3}, kBool), ones({1, 3, 2})), message("bmm_bool_float"));
  CHECK_THROWS_WITH(bmm(ones({1, 2, 3}), ones({1, 3, 2}, kBool)), message("bmm_float_bool"));
  CHECK_THROWS_WITH(matmul(ones({2, 3}, kBool), ones({3}, kBool)), message("mv_bool"));  // was addmm_impl_cpu_
  CHECK_THROWS_WITH(matmul(ones({2, 3}), ones({3}, kBool)), message("mv_float_bool"));
  CHECK(fixture::compare(matmul(ones({2, 0}, kBool), ones({0}, kBool)), output("mv_empty_bool")) == "");
  CHECK(fixture::compare(matmul(ones({2, 0}), ones({0}, kFloat64)), output("mv_empty_mixed")) == "");
}

TEST_CASE("checks fire in PyTorch's order: the op's own before the inference tensor's, dim before step, shape before "
          "alpha",
          "[fidelity][edges]") {
  auto message = [](const std::string& name) { return case_named(name)["message"].get<std::string>(); };
  Tensor inference, written;
  {
    InferenceMode mode;
    inference = ones({2}, kInt64);
    written = ones({2}, kInt64);
  }
  CHECK_THROWS_WITH(inference.add_(ones({2})), message("inference_tensor_cast_first"));
  // Refused when its version would be bumped, after the write (as PyTorch's VariableVersion::bump).
  CHECK_THROWS_WITH(written.add_(ones({2}, kInt64)), message("inference_tensor_written_then_refused"));
  CHECK(fixture::compare(written, output("inference_tensor_written_then_refused")) == "");
  CHECK_THROWS_WITH(ones({3}).slice(5, 0, 1, 0), message("slice_dim_before_step"));
  CHECK_THROWS_WITH(add(ones({2}, kInt64), ones({3}, kInt64), 0.5), message("add_shape_before_alpha"));
}
