// A small timing harness for ember's benchmarks. Why not Google Benchmark (it is installed)? Our
// benchmarks exist to print *ratios measured in one run* (ember vs raw oneDNN, inference_mode vs
// no_grad), and on a small, noisy machine a ratio is only fair when the two sides are measured
// side by side. This harness does exactly that in ~100 lines a reader can check: it warms every
// case up, then measures them in interleaved rounds (one sample of A, one of B, one of A, ...), so
// a slow patch of the machine hits both sides alike. Google Benchmark runs each case to the end
// before the next and reports each on its own line; ratios would need post-processing.
//
// Benchmarks are not tests: they print figures and never fail on time. They do stop if the two
// things being compared do not compute the same result (check_same_values), because a fast wrong
// answer is not a figure worth printing.
//
// A figure knows when it cannot be trusted: each Stats carries how busy the machine was while it
// was measured (machine_load.h: how long this process's threads waited for a CPU another process
// held) and its spread; reliable() is false when either says the median is not the code's own.
// A program that draws a conclusion from a figure asks reliable() first and says so when it is not.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "profiler/machine_load.h"

namespace bench {

// Tells the compiler that `value` is used, so it cannot drop the work that produced it.
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

// One case to time. `run(calls)` does the work `calls` times in a row; taking the count lets a
// case put scope guards (NoGradGuard, InferenceMode) outside its loop, as real code would.
struct Case {
  std::string name;
  std::function<void(int64_t calls)> run;
};

// Time per call, in seconds, over all samples of one case.
struct Stats {
  double median = 0;
  double min = 0;  // the fastest sample: on a shared machine, the one least disturbed
  double p10 = 0;  // 10% of samples were faster than this
  double p90 = 0;  // 10% of samples were slower than this
  int samples = 0;
  int64_t calls_per_sample = 0;
  ember::MachineLoad load;  // over the whole measurement (all cases' rounds, interleaved)

  // The 10%-90% spread relative to the median: 0.05 on a quiet machine, 1 and more on a busy one.
  double spread() const { return median > 0 ? (p90 - p10) / median : 0.0; }
  bool reliable() const;
};

// Above this spread a median is not reliable, however quiet the machine looked.
constexpr double kUnreliableSpread = 0.25;
inline bool Stats::reliable() const { return !load.busy() && spread() <= kUnreliableSpread; }

// Why a figure is or is not reliable, for a program to print beside it: "unreliable: this
// process's threads waited 50% of their time for a CPU", "unreliable: spread 230%, over 25%".
inline std::string reliability(const Stats& stats) {
  char text[160];
  if (stats.load.busy())
    std::snprintf(text, sizeof text, "unreliable: this process's threads waited %.0f%% of their time for a CPU",
                  100 * stats.load.waiting_fraction());
  else if (!stats.reliable())
    std::snprintf(text, sizeof text, "unreliable: spread %.0f%%, over %.0f%%", 100 * stats.spread(),
                  100 * kUnreliableSpread);
  else
    std::snprintf(text, sizeof text, "reliable: threads waited %.0f%% of their time for a CPU, spread %.0f%%",
                  100 * stats.load.waiting_fraction(), 100 * stats.spread());
  return text;
}

struct Settings {
  double warmup_seconds = 0.2;       // per case, before any timing
  double min_sample_seconds = 0.01;  // a sample batches enough calls to last at least this long
  double seconds_per_case = 1.0;     // measuring budget per case (warm-up not included)
  int min_samples = 5;
  int max_samples = 200;
  bool from_memory = false;  // every sample's data start in memory, not in a cache (evict_caches)
};

// Writes a buffer twice the last-level cache's size, so that what the next sample reads comes from
// memory and not from a cache an earlier sample or case left it in. STREAM makes its arrays four
// times the cache for the same reason; a benchmark that compares with memory bandwidth needs it
// when the cache is large (480 MiB on some of these VMs) and its tensors are not.
inline void evict_caches() {
  static std::vector<char> buffer = [] {
    const long cache = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::vector<char>(2 * static_cast<size_t>(cache > 0 ? cache : 64L << 20));
  }();
  for (size_t i = 0; i < buffer.size(); i += 64) buffer[i] = static_cast<char>(buffer[i] + 1);
  keep(buffer);
}

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs case.run(calls) once and returns the seconds it took per call.
inline double time_per_call(const Case& c, int64_t calls) {
  auto start = std::chrono::steady_clock::now();
  c.run(calls);
  return seconds_since(start) / static_cast<double>(calls);
}

inline double percentile(std::vector<double> sorted, double fraction) {
  std::sort(sorted.begin(), sorted.end());
  return sorted[static_cast<size_t>(fraction * static_cast<double>(sorted.size() - 1) + 0.5)];
}

// Warms up every case, picks how many calls make one sample, then measures all cases in
// interleaved rounds. Returns one Stats per case, in the order given.
inline std::vector<Stats> measure(const std::vector<Case>& cases, const Settings& settings = {}) {
  const ember::SchedulerClock scheduler_start = ember::scheduler_clock();
  std::vector<int64_t> calls_per_sample;
  int rounds = settings.max_samples;
  for (const Case& c : cases) {
    // Warm-up: caches, page faults, oneDNN's primitive creation and the thread pool happen here.
    double one_call = time_per_call(c, 1);
    auto start = std::chrono::steady_clock::now();
    while (seconds_since(start) < settings.warmup_seconds) one_call = time_per_call(c, 1);
    const int64_t calls = std::max<int64_t>(1, static_cast<int64_t>(settings.min_sample_seconds / one_call));
    calls_per_sample.push_back(calls);
    const double sample_seconds = one_call * static_cast<double>(calls);
    const int affordable = static_cast<int>(settings.seconds_per_case / sample_seconds);
    rounds = std::min(rounds, std::max(settings.min_samples, affordable));
  }

  // The rounds were sized from the warm-up; on a busy machine they run slower than it promised, so
  // past twice the budget the measurement stops at the end of a round (after min_samples).
  std::vector<std::vector<double>> samples(cases.size());
  const double deadline = 2 * settings.seconds_per_case * static_cast<double>(cases.size());
  const auto measuring = std::chrono::steady_clock::now();
  double evicting = 0;  // seconds spent in evict_caches, which the deadline does not count
  for (int round = 0; round < rounds; ++round) {
    if (round >= settings.min_samples && seconds_since(measuring) - evicting > deadline) {
      rounds = round;
      break;
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      if (settings.from_memory) {
        const auto start = std::chrono::steady_clock::now();
        evict_caches();
        evicting += seconds_since(start);
      }
      samples[i].push_back(time_per_call(cases[i], calls_per_sample[i]));
    }
  }

  const ember::MachineLoad load = ember::machine_load_since(scheduler_start);
  std::vector<Stats> result;
  for (size_t i = 0; i < cases.size(); ++i)
    result.push_back({percentile(samples[i], 0.5), *std::min_element(samples[i].begin(), samples[i].end()),
                      percentile(samples[i], 0.1), percentile(samples[i], 0.9), rounds, calls_per_sample[i], load});
  return result;
}

// `count` floats uniform in [-1, 1) from std::mt19937 seeded with `seed`: operands both sides of a
// comparison read, the same on every run.
inline std::vector<float> uniform_values(int64_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = uniform(generator);
  return values;
}

// Stops the program unless `actual` matches `expected` within |a - e| <= atol + rtol * |e| for
// every element. Prints the largest difference either way, so the reader sees how close they are.
inline void check_same_values(const std::string& what, const std::vector<float>& actual,
                              const std::vector<float>& expected, double rtol, double atol) {
  if (actual.size() != expected.size()) {
    std::printf("MISMATCH %s: %zu values vs %zu\n", what.c_str(), actual.size(), expected.size());
    std::exit(1);
  }
  double largest_difference = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double difference = std::fabs(static_cast<double>(actual[i]) - expected[i]);
    largest_difference = std::max(largest_difference, difference);
    if (!(difference <= atol + rtol * std::fabs(static_cast<double>(expected[i])))) {
      std::printf("MISMATCH %s at element %zu: %g vs %g\n", what.c_str(), i, actual[i], expected[i]);
      std::exit(1);
    }
  }
  std::printf("  same result: %-44s (largest difference %.3g)\n", what.c_str(), largest_difference);
}

}  // namespace bench
