// The chapter's three exercises (demos/exercises/): the figures the programs print are consistent
// with what the engine says. A kept loss grows memory by exactly the tensors its graph saved,
// loss.item() grows nothing, bf16 autocast errs at bf16's level, and a training step's hot spots
// are its matrix products.
#include <catch2/catch.hpp>

#include "exercises/autocast_speed.h"
#include "exercises/hot_spots.h"
#include "exercises/memory_leak.h"
#include "skip.h"

using namespace ember;
using namespace exercises;

TEST_CASE("exercise 1: each kept loss grows memory by exactly the tensors its graph saved, plus itself",
          "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& kept_loss = result.curves[0];
  REQUIRE(kept_loss.keep == memory_leak::Keep::Loss);
  CHECK(kept_loss.grows_linearly());
  CHECK(kept_loss.bytes.size() == 6);
  CHECK(kept_loss.bytes_per_step() == result.held_bytes);
  CHECK(kept_loss.bytes.back() == 6 * result.held_bytes);
  // Two hidden activations [32, 256] (each saved by ReLU and the next Linear), log_softmax's output
  // [32, 10] and the 0-d loss: 2 * 32768 + 1280 + 4 bytes.
  CHECK(result.held_bytes == 66820);
  REQUIRE(result.held.size() == 4);
  CHECK(result.held[0].held_by == "LogSoftmaxBackward0");
  CHECK(result.held[1].held_by == "AddmmBackward0, ReluBackward0");
  CHECK(result.held[1].sizes == Dims{32, 256});
  CHECK(result.held[3].held_by == "the loss itself");
}

TEST_CASE("exercise 1: keeping loss.item() grows nothing", "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& kept_number = result.curves[1];
  REQUIRE(kept_number.keep == memory_leak::Keep::Item);
  CHECK(kept_number.bytes == std::vector<int64_t>(6, 0));
}

TEST_CASE("exercise 1: after backward a kept loss holds only its own bytes", "[exercises]") {
  const memory_leak::Result result = memory_leak::run(kCPU, 6);
  const memory_leak::Curve& after_backward = result.curves[2];
  REQUIRE(after_backward.keep == memory_leak::Keep::LossAfterBackward);
  CHECK(after_backward.grows_linearly());
  CHECK(after_backward.bytes_per_step() == result.loss_bytes);
  CHECK(result.loss_bytes == 4);
}

TEST_CASE("exercise 2: bf16 autocast returns bf16 with an error at bf16's level, not float32's", "[exercises]") {
  const autocast_speed::Model small{.layers = 3, .width = 128, .batch = 32};
  const bench::Settings quick{.warmup_seconds = 0, .min_sample_seconds = 0, .seconds_per_case = 0, .min_samples = 3};
  const autocast_speed::Result result = autocast_speed::run(kCPU, kBFloat16, small, quick);
  CHECK(result.autocast_output_dtype == kBFloat16);
  // bf16 keeps 8 significant bits: one rounding of the output alone is up to 2^-9 relative; three
  // layers of bf16 inputs stay well under 2^-5. float32 arithmetic would err by ~2^-20.
  CHECK(result.max_relative_error > 0x1p-12);
  CHECK(result.max_relative_error < 0x1p-5);
  CHECK(result.float32.samples >= 3);
  CHECK(result.speedup > 0);
}

TEST_CASE("exercise 3: the chapter's advice follows the roofline verdict", "[exercises]") {
  using profiler::Bound;
  CHECK_THAT(hot_spots::advice({Bound::Compute}, 0.9), Catch::Contains("already at the hardware limit"));
  CHECK_THAT(hot_spots::advice({Bound::Compute}, 0.3), Catch::Contains("a bigger batch"));
  CHECK_THAT(hot_spots::advice({Bound::Memory}, 0.0), Catch::Contains("fuse"));
  CHECK_THAT(hot_spots::advice({Bound::Overhead}, 0.0), Catch::Contains("batch more"));
}

TEST_CASE("exercise 3: the top ops by self time of a training step are its matrix products", "[exercises][serial]") {
  if (skip::under_sanitizer("the ranking times real ops, and instrumented element-wise kernels are slower than "
                            "oneDNN's uninstrumented products by more than the ranking's margin"))
    return;
  const profiler::MachinePeaks any_machine{1e11, 1e10};  // the ranking does not depend on the peaks
  const hot_spots::Result result = hot_spots::run(2, 5, any_machine, "");
  REQUIRE(result.top.size() == 5);
  for (int rank : {0, 1}) {
    INFO("rank " << rank << ": " << result.top[rank].row.key);
    CHECK((result.top[rank].row.key == "aten::mm" || result.top[rank].row.key == "aten::addmm"));
  }
  CHECK(result.table.find("aten::addmm") != std::string::npos);
}
