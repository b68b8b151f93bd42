// Autocast's own names, libtorch's (at::autocast::is_cpu_enabled, set_autocast_cpu_dtype, ...), as
// PyTorch 1.13 answers them around nested regions: the expected states, warnings and errors are
// torch's, in autocast.json's "names" (tools/fixtures/autocast.py).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "captured_warnings.h"
#include "fixture.h"

using namespace ember;

namespace {

const fixture::json& names() { return fixture::load("autocast.json")["names"]; }

// [is_autocast_enabled, is_autocast_cpu_enabled, cpu dtype, gpu dtype, is_autocast_cache_enabled]
fixture::json state() {
  return fixture::json::array({autocast::is_enabled(), autocast::is_cpu_enabled(),
                               to_string(autocast::get_autocast_cpu_dtype()),
                               to_string(autocast::get_autocast_gpu_dtype()), autocast::is_autocast_cache_enabled()});
}

std::string runtime_error(const std::string& text) { return "RuntimeError: " + text; }

}  // namespace

TEST_CASE("outside any region autocast is off with bfloat16 on the CPU, float16 on the GPU, the cache on",
          "[autocast][names]") {
  CHECK(state() == names()["outside"]);
}

TEST_CASE("a CPU region turns CPU autocast on and leaves GPU autocast off", "[autocast][names]") {
  AutocastGuard region(DeviceType::CPU);
  CHECK(state() == names()["in_cpu"]);
}

TEST_CASE("an inner disabled region without the cache is off inside and restores the outer state",
          "[autocast][names]") {
  AutocastGuard outer(DeviceType::CPU);
  {
    AutocastGuard inner(DeviceType::CPU, std::nullopt, /*enabled=*/false, /*cache_enabled=*/false);
    CHECK(state() == names()["in_inner_disabled_uncached"]);
  }
  CHECK(state() == names()["after_inner"]);
}

TEST_CASE("leaving the outermost region restores the state from before it", "[autocast][names]") {
  { AutocastGuard region(DeviceType::CPU); }
  CHECK(state() == names()["after_outer"]);
}

TEST_CASE("the nesting count is what increment_nesting and decrement_nesting return", "[autocast][names]") {
  std::vector<int> counts{autocast::increment_nesting(), autocast::increment_nesting(), autocast::decrement_nesting(),
                          autocast::decrement_nesting()};
  CHECK(fixture::json(counts) == names()["nesting_counts"]);
}

TEST_CASE("set_cpu_enabled switches CPU autocast on for the ops, as a region does", "[autocast][names]") {
  autocast::set_cpu_enabled(true);
  const bool enabled = autocast::is_cpu_enabled();
  const DType product = mm(ones({2, 2}), ones({2, 2})).dtype();
  autocast::set_cpu_enabled(false);
  CHECK(enabled);
  CHECK(product == kBFloat16);
  CHECK(mm(ones({2, 2}), ones({2, 2})).dtype() == kFloat32);
}

TEST_CASE("set_autocast_gpu_dtype sets the dtype a GPU region takes by default", "[autocast][names]") {
  autocast::set_autocast_gpu_dtype(kBFloat16);
  const DType in_region = [] {
    AutocastGuard region(DeviceType::CUDA, std::nullopt, /*enabled=*/false);
    return autocast::get_autocast_gpu_dtype();
  }();
  autocast::set_autocast_gpu_dtype(kFloat16);
  CHECK(in_region == kBFloat16);
}

TEST_CASE("clear_cache drops the weights autocast has cast", "[autocast][names]") {
  Tensor weight = ones({2, 2}, Options(kFloat32).requires_grad());
  AutocastGuard region(DeviceType::CPU);
  mm(ones({2, 2}), weight);
  REQUIRE(autocast::cache_size() == 1);
  autocast::clear_cache();
  CHECK(autocast::cache_size() == 0);
}

TEST_CASE("set_autocast_cpu_dtype refuses any dtype but bfloat16 with PyTorch's error", "[autocast][names]") {
  const std::string expected = names()["set_cpu_dtype_error"];
  CHECK_THROWS_WITH(autocast::set_autocast_cpu_dtype(kFloat32), expected.substr(std::string("RuntimeError: ").size()));
  CHECK(autocast::get_autocast_cpu_dtype() == kBFloat16);
}

TEST_CASE("a float16 CPU region warns that it disables autocast, then fails as PyTorch 1.13 does",
          "[autocast][names]") {
  CapturedWarnings warnings;
  std::string error;
  try {
    AutocastGuard region(DeviceType::CPU, kFloat16);
  } catch (const Error& e) {
    error = runtime_error(e.what());
  }
  CHECK(fixture::json(warnings.texts) == names()["cpu_float16_warnings"]);
  CHECK(error == names()["cpu_float16_error"]);
  CHECK(state() == names()["after_cpu_float16_error"]);
}

TEST_CASE("a CUDA region without a GPU warns and stays off", "[autocast][names]") {
  if (cuda::is_available()) return;  // with a GPU there is nothing to warn about
  CapturedWarnings warnings;
  AutocastGuard region(DeviceType::CUDA);
  CHECK_FALSE(autocast::is_enabled());
  CHECK(fixture::json(warnings.texts) == names()["cuda_without_gpu_warnings"]);
}
