// What the differential replay (test_replay.cpp) found ember doing differently from PyTorch 1.13
// once issue 13's table was fixed, one behaviour per case, with PyTorch's text or value from
// fidelity.json (tools/fixtures/fidelity_replay.py).
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "captured_warnings.h"
#include "ember.h"
#include "fidelity_fixture.h"

using namespace ember;
using fidelity::bools;
using fidelity::case_named;

namespace {

std::string replay_message(const std::string& name) {
  return case_named("replay_" + name)["message"].get<std::string>();
}

Tensor ints() { return from_vector<int64_t>({1, 2}, {2}); }

}  // namespace

TEST_CASE("subtracting two bools names both, and a number True counts as a bool", "[fidelity][replay]") {
  CHECK_THROWS_WITH(bools() - bools(), replay_message("sub_two_bools"));  // was the one-bool text
  CHECK_THROWS_WITH(bools() - Scalar(true), replay_message("sub_bool_and_true"));
  CHECK_THROWS_WITH(Scalar(true) - bools(), replay_message("rsub_true_and_bool"));
  CHECK_THROWS_WITH(bools() - ints(), replay_message("sub_bool_and_int"));
}

TEST_CASE("in-place subtraction refuses bools before it looks at the result dtype", "[fidelity][replay]") {
  CHECK_THROWS_WITH(bools().sub_(bools()), replay_message("sub_in_place_two_bools"));      // was accepted
  CHECK_THROWS_WITH(bools().sub_(ints()), replay_message("sub_in_place_bool_minus_int"));  // was the cast text
  CHECK_THROWS_WITH(ints().sub_(bools()), replay_message("sub_in_place_int_minus_bool"));  // was accepted
  CHECK_THROWS_WITH(bools().sub_(1.5), replay_message("sub_in_place_bool_minus_number"));  // was the cast text
}

TEST_CASE("matmul of two bool vectors is refused by dot, the op it runs", "[fidelity][replay]") {
  CHECK_THROWS_WITH(matmul(bools(), bools()), replay_message("dot_bool"));  // was addmm's text
}

TEST_CASE("mean over dims keeps its input for backward, as PyTorch's MeanBackward1 does", "[fidelity][replay]") {
  SECTION("so a second backward without retain_graph is refused") {  // was allowed
    Tensor y = ones({2, 3}, Options().requires_grad()).mean({1});
    y.sum().backward();
    CHECK_THROWS_WITH(y.sum().backward(), replay_message("second_backward_mean_dim"));
  }
  SECTION("and so is a change to the input in place") {  // was a silent gradient
    Tensor x = ones({2, 3}, Options().requires_grad());
    Tensor a = wrapped_number::mul(x, 1);  // Python's `x * 1`
    Tensor y = a.mean({1});
    wrapped_number::add_(a, 1);
    CHECK_THROWS_WITH(y.sum().backward(), replay_message("mean_dim_input_changed"));
  }
}

TEST_CASE("negating a float64 zero gives minus zero on the vectorised path too", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_neg_zeros_float64");
  CHECK(fixture::compare_exact(neg(fixture::make(c["input"])), c["output"]) == "");  // was +0.0 from 0.0
}

namespace {
template <typename Make>
int grad_version(Make make, const Dims& shape = {2, 3}) {
  Tensor x = ones(shape, Options().requires_grad());
  make(x).backward();
  return static_cast<int>(x.grad()._version());
}
}  // namespace

TEST_CASE("a leaf's first .grad is at PyTorch's version: 1 when copied in, 0 when a formula made it",
          "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_grad_versions");
  CHECK(grad_version([](const Tensor& x) { return x.sum(); }) == c["sum"].get<int>());                   // was 0
  CHECK(grad_version([](const Tensor& x) { return x.select(0, 1).sum(); }) == c["select"].get<int>());   // was 1
  CHECK(grad_version([](const Tensor& x) { return x.slice(1, 1, 3).sum(); }) == c["slice"].get<int>());  // was 1
  CHECK(grad_version([](const Tensor& x) { return (x * 2).sum(); }) == c["mul"].get<int>());
  CHECK(grad_version([](const Tensor& x) { return x.pow(0).sum(); }) == c["pow_0"].get<int>());  // was 1
  CHECK(grad_version([](const Tensor& x) { return x.unsqueeze(1).sum(); }, {0}) == c["unsqueeze_empty"].get<int>());
}

TEST_CASE("a gradient its formula wrote in place reaches .grad with those writes counted", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_grad_versions");                          // each was 0
  CHECK(grad_version([](const Tensor& x) { return x.max(); }) == c["max"].get<int>());  // masked_fill_
  CHECK(grad_version([](const Tensor& x) { return x.min(); }) == c["min"].get<int>());
  CHECK(grad_version([](const Tensor& x) { return max(x, 1).values.sum(); }) ==
        c["max_dim"].get<int>());  // zeros, scatter_
  CHECK(grad_version([](const Tensor& x) { return min(x, 0, true).values.sum(); }) == c["min_dim_keepdim"].get<int>());
  CHECK(grad_version([](const Tensor& x) { return maximum(x, zeros({2, 3})).sum(); }) == c["maximum"].get<int>());
  CHECK(grad_version([](const Tensor& x) {
          return as_strided_recorded(x, {2, 2}, {1, 2}, 0).sum();
        }) == c["as_strided"].get<int>());  // zeros, copy_
  CHECK(grad_version([](const Tensor& x) { return as_strided_recorded(x, {0}, {1}, 0).sum(); }, {2, 0}) ==
        c["as_strided_empty"].get<int>());  // only zeros
  CHECK(grad_version([](const Tensor& x) { return x.clone().select(0, 0).add_(1).sum(); }) ==
        c["copy_slices"].get<int>());  // CopySlices: copy_, then copy_ into the region
}

TEST_CASE("a new view of the gradient given to backward becomes .grad itself, sharing its bytes",
          "[fidelity][replay]") {
  // AccumulateGrad keeps an incoming gradient when no other handle refers to it, however many
  // refer to its storage: a view of the user's gradient is kept, the gradient itself is copied.
  const fixture::json& c = case_named("replay_kept_gradients");
  auto kept = [](auto make, const Dims& shape) {
    Tensor x = ones(shape, Options().requires_grad());
    const Tensor y = make(x);
    Tensor g = ones_like(y);
    y.backward(g);
    const fixture::json first{x.grad()._version(), x.grad().raw_data() == g.raw_data()};
    g.add_(1);
    return fixture::json{first[0], first[1], x.grad()._version()};
  };
  CHECK(kept([](const Tensor& x) { return x.view({6}); }, {2, 3}) == c["view"]);  // was copied: [1, false, 1]
  CHECK(kept([](const Tensor& x) { return x.t(); }, {3}) == c["t_of_1d"]);        // t() of a vector is a view too
  CHECK(kept([](const Tensor& x) { return x.transpose(0, 0); }, {}) == c["transpose_of_0d"]);
  CHECK(kept([](const Tensor& x) { return x.squeeze(0); }, {2, 3}) == c["squeeze_of_nothing"]);  // g itself: copied
  CHECK(kept([](const Tensor& x) { return x.squeeze(0); }, {1, 3}) == c["squeeze"]);
}

TEST_CASE("dot and mv of bfloat16 round each product and each running sum, as PyTorch's CPU loops do",
          "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_bfloat16_dot_and_mv");  // each was summed in float32
  const Tensor a = fixture::make(c["a"]), b = fixture::make(c["b"]);
  const Tensor matrix = fixture::make(c["matrix"]), vector = fixture::make(c["vector"]);
  CHECK(fixture::compare_exact(matmul(a, b), c["dot"]) == "");
  CHECK(fixture::compare_exact(matmul(matrix, vector), c["mv"]) == "");
  CHECK(fixture::compare_exact(matmul(matrix.t().contiguous().t(), vector), c["mv_column_major"]) == "");
}

TEST_CASE("matmul's out= takes a folded product even when out is not contiguous", "[fidelity][replay][resize]") {
  const fixture::json& c = case_named("replay_matmul_out_folded_into_transposed_out");
  Tensor out = zeros({2, 2, 2}, kInt64).transpose(2, 0);
  matmul_out(out, arange(8).reshape({2, 2, 2}), arange(4).reshape({2, 2}));  // was a broadcast error
  CHECK(fixture::compare_exact(out, c["output"]) == "");
  CHECK(out._version() == c["version"].get<uint32_t>());
}

TEST_CASE("an element-wise out= that must be resized is laid out like a new result", "[fidelity][replay][resize]") {
  const fixture::json& c = case_named("replay_mul_out_resized_like_its_input")["cases"];
  const Tensor permuted = arange(24, kFloat32).reshape({2, 3, 4}).transpose(0, 2);
  for (const auto& [name, out_sizes] :
       std::map<std::string, Dims>{{"wrong_shape", {3, 2}}, {"empty", {0}}, {"right_shape", {4, 3, 2}}}) {
    INFO(name);
    CapturedWarnings resize_warning;
    Tensor out = zeros(out_sizes);
    mul_out(out, permuted, full({}, 2.0));
    CHECK(fixture::compare_exact(out, c[name]["output"]) == "");
    CHECK(out.strides() == fidelity::dims_of(c[name]["strides"]));  // was contiguous after a resize
  }
}

TEST_CASE("a result resized by out= under no_grad must still get a gradient of the sizes its node made",
          "[fidelity][replay][resize]") {
  const fixture::json& c = case_named("replay_resized_root");
  CapturedWarnings resize_warnings;
  auto resized = [](auto make, const Dims& recorded_input, const Dims& new_sizes) {
    Tensor x = ones(recorded_input, Options().requires_grad());
    Tensor y = make(x);
    NoGradGuard no_grad;
    add_out(y, ones(new_sizes), ones(new_sizes));
    return std::pair{x, y};
  };
  {
    const auto [x, y] = resized([](const Tensor& x) { return x * 1; }, {2, 1, 2}, {2, 2, 3});
    CHECK_THROWS_WITH(y.backward(ones({2, 2, 3})), c["message"].get<std::string>());  // was SliceBackward's
  }
  {
    const Tensor x = ones({2}, Options().requires_grad());
    Tensor a = x * 3, b = x * 1;
    {
      NoGradGuard no_grad;
      add_out(b, ones({3}), ones({3}));
    }
    CHECK_THROWS_WITH(autograd::grad({a, b}, {x}, {ones({2}), ones({3})}), c["grad_message"].get<std::string>());
  }
  const auto [x, y] = resized([](const Tensor& x) { return (x * 2).sum(); }, {2}, {3});
  y.backward(ones({3}));  // summed down to the 0-d result the sum made
  CHECK(fixture::compare(x.grad(), c["summed_grad"]) == "");
}

TEST_CASE("a leaf resized after its graph was recorded gets no gradient that does not fit it", "[fidelity][replay]") {
  // Was an internal assert in AccumulateGrad (replay seed 4040); PyTorch copies into the leaf's sizes.
  Tensor x = ones({3, 1, 2}, Options().requires_grad());
  const Tensor y = (x * 2).sum();
  {
    CapturedWarnings resize_warning;
    NoGradGuard no_grad;
    add_out(x, ones({3, 1, 1}), ones({3, 1, 1}));
  }
  CHECK_THROWS_WITH(y.backward(), case_named("replay_resized_root")["leaf_message"].get<std::string>());
  CHECK_FALSE(x.grad().defined());
}

// PyTorch's case: a custom Function whose backward returns a [5, 4] gradient for a [2, 3] input.
struct Wrong : autograd::Function<Wrong> {
  static Tensor forward(autograd::AutogradContext*, const Tensor& x) { return x.t(); }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const std::vector<Tensor>&) { return {ones({5, 4})}; }
};

TEST_CASE("a node's gradient that cannot fit its input is refused with the input's index", "[fidelity][replay]") {
  const Tensor x = ones({2, 3}, Options().requires_grad());
  CHECK_THROWS_WITH(Wrong::apply(x).sum().backward(),
                    case_named("replay_resized_root")["node_message"].get<std::string>());
}

TEST_CASE("an op on inference tensors outside inference mode counts the writes of PyTorch's kernel",
          "[fidelity][replay][inference]") {
  // See record.h's Note [Kernel writes outside InferenceMode]: each was at version 0.
  Tensor t, t0, empty_rows;
  {
    InferenceMode inference;
    t = rand({2, 3});
    t0 = scalar_tensor(2.0);
    empty_rows = rand({0, 3});
  }
  auto both = [](const ValuesIndices& r) { return std::vector{r.values, r.indices}; };
  const std::map<std::string, std::function<std::vector<Tensor>()>> ops{
      {"clone", [&] { return std::vector{t.clone()}; }},
      {"contiguous", [&] { return std::vector{t.t().contiguous()}; }},
      {"to", [&] { return std::vector{t.to(kFloat64)}; }},
      {"sum", [&] { return std::vector{t.sum()}; }},
      {"sum_dim", [&] { return std::vector{t.sum({1})}; }},
      {"mean", [&] { return std::vector{t.mean()}; }},
      {"mean_dim", [&] { return std::vector{t.mean({1}, true)}; }},
      {"max", [&] { return std::vector{max(t)}; }},
      {"min", [&] { return std::vector{min(t)}; }},
      {"max_dim", [&] { return both(max(t, 1)); }},
      {"min_dim_keepdim", [&] { return both(min(t, 1, true)); }},
      {"max_dim_0d", [&] { return both(max(t0, 0)); }},
      {"max_dim_empty", [&] { return both(max(empty_rows, 1)); }},
      {"pow_0", [&] { return std::vector{t.pow(0)}; }},
      {"pow_1", [&] { return std::vector{t.pow(1)}; }},
      {"pow_2", [&] { return std::vector{t.pow(2)}; }},
      {"mse_loss_mean", [&] { return std::vector{mse_loss(t, t)}; }},
      {"mse_loss_none", [&] { return std::vector{mse_loss(t, t, Reduction::None)}; }},
      {"add", [&] { return std::vector{t + t}; }},
      {"exp", [&] { return std::vector{t.exp()}; }},
  };
  const fixture::json& versions = case_named("replay_inference_kernel_writes")["versions"];
  REQUIRE(versions.size() == ops.size());
  for (const auto& [name, run] : ops) {
    INFO(name);
    std::vector<uint32_t> got;
    for (const Tensor& result : run()) got.push_back(result._version());
    CHECK(got == versions.at(name).get<std::vector<uint32_t>>());
  }
  InferenceMode inference;  // inside inference mode the results are inference tensors, with no version at all
  CHECK(t.clone().is_inference());
}

TEST_CASE("mm of a bool matrix is refused by its kernel before the dtypes are compared", "[fidelity][replay]") {
  // was "expected scalar type Bool but found Long"
  CHECK_THROWS_WITH(mm(bools().view({1, 2}), ints().view({2, 1})), replay_message("mm_bool_and_int"));
}

TEST_CASE("argmax of bools checks the dim first and refuses only when it compares", "[fidelity][replay]") {
  CHECK_THROWS_WITH(argmax(zeros({2, 0}, kBool), 1), replay_message("argmax_bool_empty_dim"));  // was the bool text
  CHECK_THROWS_WITH(argmax(zeros({2, 1}, kBool), 2), replay_message("argmax_bool_dim_out_of_range"));
  CHECK_THROWS_WITH(argmax(zeros({1, 2}, kBool), 1), replay_message("argmax_bool_dim_of_two"));
  CHECK_THROWS_WITH(argmax(zeros({}, kBool), -1), replay_message("argmax_bool_0d_dim"));
  const fixture::json& c = case_named("replay_argmax_bool_uncompared");
  CHECK(fixture::compare_exact(argmax(ones({3, 1}, kBool), 1), c["size_one"]) == "");  // was refused
  CHECK(fixture::compare_exact(argmax(ones({0, 2}, kBool), 1), c["empty"]) == "");
}

TEST_CASE("a bfloat16 tensor in the version error is named CPUBFloat16Type, as PyTorch has no legacy name for it",
          "[fidelity][replay]") {
  Tensor a = wrapped_number::mul(ones({2, 1}, Options(kBFloat16).requires_grad()), 1);
  Tensor y = a * a;
  wrapped_number::mul_(a, 2);
  CHECK_THROWS_WITH(y.sum().backward(), replay_message("bfloat16_version_error"));  // was torch.BFloat16Tensor
}

TEST_CASE("the gradient of a NaN maximum is shared among the NaNs", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_max_nan_grad");
  Tensor x = fixture::make(c["input"]).requires_grad_();
  x.max().backward();
  CHECK(fixture::compare_exact(x.grad(), c["grad"]) == "");  // was NaN everywhere (0 / 0)
}

TEST_CASE("a float32 operand of a bfloat16 result is rounded to bfloat16 first", "[fidelity][replay]") {
  const fixture::json& c = case_named("replay_bfloat16_minus_float32_0d");
  const Tensor x = fixture::make(c["input"]), other = fixture::make(c["other"]);
  CHECK(fixture::compare_exact(x - other, c["output"]) == "");  // was -1.8984375: 1.84 unrounded
  CHECK(fixture::compare_exact(x.clone().sub_(other), c["in_place"]) == "");
}

TEST_CASE("x.mul_(x) then backward: the version error names the node x became", "[fidelity][replay]") {
  Tensor y = rsub(ones({3, 1, 2}, Options().requires_grad()), 3);  // Python's `3 - x`
  y.mul_(y);  // saved y (at version 0) for its own gradient, then wrote it
  CHECK_THROWS_WITH(y.sum().backward(), replay_message("square_in_place_version_error"));
}

TEST_CASE("an in-place op on a slice with gaps of its input fails on the shape, as PyTorch's overlap check "
          "cannot tell",
          "[fidelity][replay]") {
  Tensor t = ones({3, 2});
  CHECK_THROWS_WITH(t.narrow(-1, 0, 1).add_(t),
                    replay_message("add_into_a_slice_of_the_input"));  // was the overlap text
}
