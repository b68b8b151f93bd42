// Intra-op parallelism with a grain size: large element-wise ops, reductions and sums over leading
// dims are shared among threads, small ones and small products stay on the calling thread. What a
// reader can check without a clock: the values do not depend on the thread count, the thread
// count a small product lowers for itself is back afterwards, and parallel_for's chunks tile the
// range exactly once, with exceptions and nested calls handled on the thread that made them.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <omp.h>

#include "ember.h"
#include "kernels/parallel.h"

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

TEST_CASE("parallel_for rethrows a chunk's exception on the calling thread", "[parallel]") {
  with_threads(2, [] {
    CHECK_THROWS_WITH(kernels::parallel_for(0, 8 * kernels::kGrainSize, kernels::kGrainSize,
                                            [](int64_t first, int64_t) {
                                              if (first > 0) throw Error("not the first chunk");
                                            }),
                      "not the first chunk");
    return 0;
  });
}

TEST_CASE("a parallel_for inside a chunk runs inline, on the thread running that chunk", "[parallel]") {
  const int64_t grain = 4;
  std::vector<std::thread::id> outer(64), inner(64 * 64);
  with_threads(2, [&] {
    kernels::parallel_for(0, 64, grain, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        outer[i] = std::this_thread::get_id();
        kernels::parallel_for(i * 64, (i + 1) * 64, grain, [&](int64_t a, int64_t b) {
          for (int64_t j = a; j < b; ++j) inner[j] = std::this_thread::get_id();
        });
      }
    });
    return 0;
  });
  CHECK_FALSE(omp_in_parallel());
  for (int64_t j = 0; j < 64 * 64; ++j) REQUIRE(inner[j] == outer[j / 64]);
}

TEST_CASE("parallel_for uses at most set_num_threads threads, in no more chunks than grains", "[parallel]") {
  for (int threads : {1, 2, 3}) {
    INFO(threads << " threads");
    std::mutex mutex;
    std::set<std::thread::id> ids;
    std::vector<std::pair<int64_t, int64_t>> calls;
    const int64_t grain = 10, n = 1000;
    with_threads(threads, [&] {
      kernels::parallel_for(0, n, grain, [&](int64_t first, int64_t last) {
        std::lock_guard<std::mutex> lock(mutex);
        ids.insert(std::this_thread::get_id());
        calls.emplace_back(first, last);
      });
      return 0;
    });
    CHECK(ids.size() <= static_cast<size_t>(threads));
    CHECK(static_cast<int64_t>(calls.size()) <= std::min(n / grain, threads * kernels::kChunksPerThread));
    std::sort(calls.begin(), calls.end());
    int64_t covered = 0;  // the calls tile [0, n) without gaps or overlaps
    for (const auto& [first, last] : calls) {
      CHECK(first == covered);
      covered = last;
    }
    CHECK(covered == n);
  }
}

TEST_CASE("a range of at most one grain runs as one call on the calling thread", "[parallel]") {
  std::vector<std::pair<int64_t, int64_t>> calls;
  std::thread::id ran_on;
  with_threads(2, [&] {
    kernels::parallel_for(5, 5 + kernels::kGrainSize, kernels::kGrainSize, [&](int64_t first, int64_t last) {
      calls.emplace_back(first, last);
      ran_on = std::this_thread::get_id();
    });
    return 0;
  });
  CHECK(calls == std::vector<std::pair<int64_t, int64_t>>{{5, 5 + kernels::kGrainSize}});
  CHECK(ran_on == std::this_thread::get_id());
}

TEST_CASE("ops over more than the grain size give the same values on two threads as on one", "[parallel]") {
  manual_seed(0);
  const Tensor a = randn({300, 500});  // 150000 elements: several grains
  const Tensor row = randn({500});
  auto results = [&] {
    return std::vector<std::vector<float>>{
        (a + row).to_vector<float>(),    // one run per row, rows shared among threads
        (a.t() * 2).to_vector<float>(),  // strided runs
        a.exp().to_vector<float>(),      // Eigen's vectorised exp, in pieces
        relu(a).to_vector<float>(),
        threshold_backward(a.t().contiguous().t(), a, 0.1).to_vector<float>(),
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
  // more rows than a level of ATen's cascade (16) and more columns than a block of sum_columns (16).
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
