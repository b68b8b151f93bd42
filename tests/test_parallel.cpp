// Intra-op parallelism with a grain size: large element-wise ops, reductions and sums over leading
// dims are shared among threads, small ones and small products stay on the calling thread. What a
// reader can check without a clock: the values do not depend on the thread count, and the thread
// count a small product lowers for itself is back afterwards.
#include <catch2/catch.hpp>

#include "ember.h"

using namespace ember;

namespace {

// Runs `f` with `threads` intra-op threads, then restores the count it found.
template <typename F>
auto with_threads(int threads, F&& f) {
  const int before = get_num_threads();
  set_num_threads(threads);
  auto result = f();
  set_num_threads(before);
  return result;
}

}  // namespace

TEST_CASE("ops over more than the grain size give the same values on two threads as on one", "[parallel]") {
  manual_seed(0);
  const Tensor a = randn({300, 500});  // 150000 elements: several grains
  const Tensor row = randn({500});
  auto results = [&] {
    return std::vector<std::vector<float>>{
        (a + row).to_vector<float>(),    // one run per row, rows shared among threads
        (a.t() * 2).to_vector<float>(),  // strided runs
        a.exp().to_vector<float>(),      // Eigen's vectorised exp, in pieces
        gt(a, 0.5).to(kFloat32).to_vector<float>(),
        a.sum({1}).to_vector<float>(),  // rows
        a.sum({0}).to_vector<float>(),  // columns
        max(a, 1).values.to_vector<float>(),
    };
  };
  const auto one = with_threads(1, results);
  const auto two = with_threads(2, results);
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("result " << i);
    CHECK(one[i] == two[i]);
  }
}

TEST_CASE("a sum over the leading dims equals the same sum taken row by row", "[parallel][ops]") {
  // Small integers, so every order of summation gives the exact same float64 total. The shape has
  // more rows than one chunk (128) and more columns than one tile (256) of sum_columns.
  manual_seed(0);
  const Tensor a = randint(0, 7, {300, 2, 311}, kFloat64);
  const Tensor by_columns = a.sum({0});                               // leading dim: columns in place
  const Tensor by_rows = a.permute({1, 2, 0}).contiguous().sum({2});  // trailing dim: rows
  CHECK(by_columns.sizes() == Dims{2, 311});
  CHECK(by_columns.to_vector<double>() == by_rows.to_vector<double>());
  CHECK(a.sum({0, 1}, /*keepdim=*/true).sizes() == Dims{1, 1, 311});
  CHECK(a.sum({0, 1}).to_vector<double>() == a.sum({0}).sum({0}).to_vector<double>());
}

TEST_CASE("a product small enough for one thread leaves the thread count as it was", "[parallel]") {
  const int before = get_num_threads();
  set_num_threads(2);
  const Tensor a = ones({32, 64}), b = ones({64, 64});  // 131072 multiply-adds: one thread
  CHECK(mm(a, b).sum().item<float>() == 32.f * 64.f * 64.f);
  CHECK(get_num_threads() == 2);
  set_num_threads(before);
}
