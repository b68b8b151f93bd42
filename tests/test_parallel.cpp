// Intra-op parallelism with a grain size: large element-wise ops, reductions and sums over leading
// dims are shared among threads, small ones and small products stay on the calling thread. What a
// reader can check without a clock: the values do not depend on the thread count, the thread
// count a small product lowers for itself is back afterwards, and the pool (kernels/thread_pool.h)
// runs every chunk exactly once whichever helpers show up, none included.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "ember.h"
#include "kernels/parallel.h"

using namespace ember;
using kernels::ThreadPool;

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

// Runs `body(chunk)` through pool.run.
template <typename F>
void run_chunks(ThreadPool& pool, int64_t chunks, int helpers, F body) {
  pool.run(
      chunks, helpers, [](void* context, int64_t chunk) { (*static_cast<F*>(context))(chunk); }, &body);
}

// How many times each chunk ran, and on which threads.
struct Tally {
  explicit Tally(int64_t chunks) : runs(static_cast<size_t>(chunks)) {}
  std::vector<std::atomic<int>> runs;
  std::mutex mutex;
  std::set<std::thread::id> threads;
  void record(int64_t chunk) {
    runs[static_cast<size_t>(chunk)]++;
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  }
  bool each_once() const {
    return std::all_of(runs.begin(), runs.end(), [](const std::atomic<int>& n) { return n == 1; });
  }
};

}  // namespace

TEST_CASE("a job whose helpers never show up is done by the caller, every chunk once", "[parallel]") {
  ThreadPool pool(0);  // three helpers invited, none exists: the caller claims every chunk itself
  Tally tally(1000);
  run_chunks(pool, 1000, 3, [&](int64_t chunk) { tally.record(chunk); });
  CHECK(tally.each_once());
  CHECK(tally.threads == std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_CASE("every chunk runs exactly once in job after job, whichever helpers wake in time", "[parallel]") {
  // Thousands of short jobs in a row: a helper that wakes late meets a finished job (on the
  // caller's stack, long gone) or a newer one; its claim must fail or take the newer job's chunk.
  ThreadPool pool(3);
  for (int job = 0; job < 3000; ++job) {
    const int64_t chunks = 1 + job % 40;
    Tally tally(chunks);
    run_chunks(pool, chunks, 1 + job % 3, [&](int64_t chunk) { tally.record(chunk); });
    REQUIRE(tally.each_once());
    REQUIRE(tally.threads.size() <= static_cast<size_t>(2 + job % 3));  // the caller and its helpers
  }
}

TEST_CASE("a helper held up inside its chunk keeps the caller from no other chunk", "[parallel]") {
  // The helper's chunk waits until the caller has run every other chunk: a pool whose caller
  // waited for its helpers before claiming (a barrier) would never finish, and the helper gives
  // up after ten seconds and says so. If the helper never wakes, the caller runs all 16.
  ThreadPool pool(1);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> by_caller{0};
  std::atomic<bool> gave_up{false};
  Tally tally(16);
  run_chunks(pool, 16, 1, [&](int64_t chunk) {
    if (std::this_thread::get_id() == caller) {
      by_caller++;
    } else {
      const auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (by_caller < 15 && !gave_up) gave_up = std::chrono::steady_clock::now() > give_up_at;
    }
    tally.record(chunk);
  });
  CHECK_FALSE(gave_up);
  CHECK(by_caller >= 15);
  CHECK(tally.each_once());
}

TEST_CASE("an exception thrown in a chunk is rethrown on the caller, and the pool runs the next job", "[parallel]") {
  ThreadPool pool(2);
  auto failing = [](int64_t chunk) {
    if (chunk == 5) throw Error("chunk 5 failed");
  };
  CHECK_THROWS_WITH(run_chunks(pool, 64, 2, failing), "chunk 5 failed");
  Tally tally(64);
  run_chunks(pool, 64, 2, [&](int64_t chunk) { tally.record(chunk); });
  CHECK(tally.each_once());
}

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
  std::atomic<bool> nested_flag_set{true};
  with_threads(2, [&] {
    kernels::parallel_for(0, 64, grain, [&](int64_t first, int64_t last) {
      nested_flag_set = nested_flag_set && kernels::in_parallel_region();
      for (int64_t i = first; i < last; ++i) {
        outer[i] = std::this_thread::get_id();
        kernels::parallel_for(i * 64, (i + 1) * 64, grain, [&](int64_t a, int64_t b) {
          for (int64_t j = a; j < b; ++j) inner[j] = std::this_thread::get_id();
        });
      }
    });
    return 0;
  });
  CHECK(nested_flag_set);
  CHECK_FALSE(kernels::in_parallel_region());
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
