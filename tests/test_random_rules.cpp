// The rules PyTorch's samplers follow besides their numbers: an in-place sampler bumps the
// version once and records a node with a zero gradient, the factories honour requires_grad and
// the default dtypes, InferenceMode makes inference tensors, and invalid bounds, probabilities,
// dtypes, overlapping or leaf targets are refused with PyTorch's messages
// (tests/fixtures/random.json's "errors", written by tools/make_fixtures.py from PyTorch 1.13).
// The numbers themselves are checked in test_random_sampling.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "ember.h"
#include "fixture.h"
#include "random_bits.h"

using namespace ember;
using namespace random_bits;
using fixture::json;

// ---- autograd and versions ----

TEST_CASE("In-place samplers bump the version counter once", "[random]") {
  Tensor t = empty({20});
  uniform_(t);
  CHECK(t._version() == 1);
  normal_(t);
  bernoulli_(t, 0.5);
  Tensor integers = empty({4}, kInt64);
  random_(integers, 0, 3);
  CHECK(t._version() == 3);
  CHECK(integers._version() == 1);
}

TEST_CASE("Sampling into a non-leaf that requires grad gives it a zero gradient", "[random]") {
  Tensor x = ones({3}, Options().requires_grad());
  Tensor y = x * 2;
  normal_(y);
  CHECK(y.grad_fn()->name() == "NormalBackward0");
  y.sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{0, 0, 0});
  Tensor z = x * 2;
  CHECK(uniform_(z).grad_fn()->name() == "UniformBackward0");
  CHECK(bernoulli_(z, 0.5).grad_fn()->name() == "BernoulliBackward2");
  CHECK(random_(z, 0, 5).grad_fn()->name() == "RandomBackward0");
  CHECK(bernoulli(full({2}, 0.5, Options().requires_grad())).grad_fn()->name() == "BernoulliBackward0");
}

TEST_CASE("Factories honour requires_grad, dtype and the default dtypes", "[random]") {
  CHECK(rand({2}, Options().requires_grad()).requires_grad());
  CHECK(randn({2}, Options().requires_grad()).is_leaf());
  CHECK(randn({2}).dtype() == kFloat32);
  CHECK(randint(0, 3, {2}).dtype() == kInt64);
  CHECK(randint(0, 3, {2}, kFloat32).dtype() == kFloat32);
  CHECK(randperm(3).dtype() == kInt64);
  CHECK(bernoulli(full({2}, 0.5, kFloat64)).dtype() == kFloat64);
}

TEST_CASE("Inside InferenceMode the samplers make inference tensors with the same numbers", "[random]") {
  manual_seed(9);
  const json expected = bits_of(randn({20}));
  manual_seed(9);
  Tensor sampled;
  {
    InferenceMode guard;
    sampled = randn({20});
  }
  CHECK(sampled.is_inference());
  CHECK(bits_of(sampled) == expected);
}

// ---- errors: PyTorch's messages ----

TEST_CASE("uniform_ and rand reject bad bounds and dtypes with PyTorch's messages", "[random]") {
  Tensor t = empty({3});
  CHECK_THROWS_WITH(uniform_(t, 1, 0), torch_message("uniform_from_greater_than_to"));
  CHECK_THROWS_WITH(uniform_(t, 0, 1e39), torch_message("uniform_to_out_of_bounds"));
  CHECK_THROWS_WITH(uniform_(t, std::nan(""), 1), torch_message("uniform_from_nan"));
  CHECK_THROWS_WITH(uniform_(t, -3e38, 3e38), torch_message("uniform_range_too_wide"));
  Tensor wide = empty({3}, kFloat64);
  CHECK_THROWS_WITH(uniform_(wide, -1.7e308, 1.7e308), torch_message("uniform_range_too_wide_float64"));
  Tensor low_precision = empty({3}, kBFloat16);
  CHECK_THROWS_WITH(uniform_(low_precision, 0, 1e39), torch_message("uniform_bfloat16_to_out_of_bounds"));
  Tensor integers = empty({3}, kInt64);
  CHECK_THROWS_WITH(uniform_(integers), torch_message("uniform_int64"));
  CHECK_THROWS_WITH(rand({3}, kInt64), torch_message("rand_int64"));
}

TEST_CASE("normal_ and randn reject a negative std and non-floating dtypes with PyTorch's messages", "[random]") {
  Tensor t = empty({3});
  CHECK_THROWS_WITH(normal_(t, 0, -1), torch_message("normal_negative_std"));
  CHECK_THROWS_WITH(normal_(t, 0, std::nan("")), torch_message("normal_nan_std"));
  CHECK_THROWS_WITH(randn({3}, kInt64), torch_message("randn_int64"));
  CHECK_THROWS_WITH(randn({3}, kBool), torch_message("randn_bool"));
}

TEST_CASE("bernoulli_ and bernoulli reject bad probabilities and dtypes with PyTorch's messages", "[random]") {
  Tensor t = empty({3});
  CHECK_THROWS_WITH(bernoulli_(t, 1.5), torch_message("bernoulli_p_above_one"));
  CHECK_THROWS_WITH(bernoulli_(t, -0.5), torch_message("bernoulli_p_negative"));
  CHECK_THROWS_WITH(bernoulli_(t, std::nan("")), torch_message("bernoulli_p_nan"));
  Tensor half = empty({3}, kFloat16);
  CHECK_THROWS_WITH(bernoulli_(half, 0.5), torch_message("bernoulli_float16"));
  CHECK_THROWS_WITH(bernoulli(tensor({0.5, 1.5})), torch_message("bernoulli_tensor_out_of_range"));
  CHECK_THROWS_WITH(bernoulli(from_vector<int64_t>({1, 0}, {2})), torch_message("bernoulli_tensor_int64"));
  CHECK_THROWS_WITH(bernoulli(tensor({0.5, 0.5}, kFloat16)), torch_message("bernoulli_tensor_float16"));
}

TEST_CASE("randint rejects empty ranges and out-of-range bounds with PyTorch's messages", "[random]") {
  CHECK_THROWS_WITH(randint(5, 5, {3}), torch_message("randint_empty_range"));
  CHECK_THROWS_WITH(randint(5, 3, {3}), torch_message("randint_reversed_range"));
  CHECK_THROWS_WITH(randint(-1, 2, {3}, kBool), torch_message("randint_bool_from_out_of_bounds"));
  CHECK_THROWS_WITH(randint(0, 10, {3}, kBool), torch_message("randint_bool_to_out_of_bounds"));
  CHECK_THROWS_WITH(randint(0, 70000, {3}, kFloat16), torch_message("randint_float16_to_out_of_bounds"));
  CHECK_THROWS_WITH(randint(0, 10, {3}, Options().requires_grad()), torch_message("randint_requires_grad"));
}

TEST_CASE("randperm rejects negative sizes, bool and too many float16 values with PyTorch's messages", "[random]") {
  CHECK_THROWS_WITH(randperm(-1), torch_message("randperm_negative"));
  CHECK_THROWS_WITH(randperm(5, kBool), torch_message("randperm_bool"));
  CHECK_THROWS_WITH(randperm(3000, kFloat16), torch_message("randperm_float16_too_large"));
  CHECK_THROWS_WITH(randperm((int64_t{1} << 24) + 2, kFloat32), "n cannot be greater than 2^24+1 for Float type.");
  CHECK_THROWS_WITH(randperm((int64_t{1} << 53) + 2, kFloat64), "n cannot be greater than 2^53+1 for Double type.");
  Tensor half = zeros({2}, kFloat16);
  CHECK_THROWS_WITH(random_(half, 2051, 2052), "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                                               "dtype, but got from=2051 >= to=2050");
}

TEST_CASE("In-place samplers follow the overlap, leaf and inference-tensor rules", "[random]") {
  Tensor expanded = empty({1}).expand({3});
  CHECK_THROWS_WITH(uniform_(expanded), torch_message("uniform_expanded"));
  Tensor expanded_more = empty({1}).expand({20});
  CHECK_THROWS_WITH(normal_(expanded_more), torch_message("normal_expanded"));
  Tensor leaf = empty({3}, Options().requires_grad());
  CHECK_THROWS_WITH(uniform_(leaf), torch_message("uniform_leaf_requires_grad"));
  {
    NoGradGuard no_grad;  // what nn::init does
    manual_seed(5);
    uniform_(leaf);
  }
  manual_seed(5);
  CHECK(bits_of(leaf.detach()) == bits_of(rand({3})));
  CHECK(leaf.is_leaf());
  CHECK(leaf.requires_grad());
  CHECK(leaf._version() == 1);
  Tensor inference;
  {
    InferenceMode guard;
    inference = empty({3});
  }
  CHECK_THROWS_WITH(uniform_(inference), torch_message("uniform_inference_tensor"));
}
