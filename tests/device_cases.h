// The device-generic test cases: a case written once over `device`, registered twice, as
//   "NAME (checking device)" [checked]  on checked:0, on every machine (engine/core/checking_device.h),
//   "NAME (cuda:0)"          [cuda][gpu] on the GPU, skipped without one (tests/skip.h), run by
//                                        tools/gpu_check.sh.
// The checking device runs the CPU's kernels and refuses any tensor that is not its own, so a
// host-side mistake about devices fails here, on every machine, before a GPU ever sees it.
//
//   DEVICE_TEST_CASE("a clone keeps its strides on the device", "[layout]") {
//     CHECK(ones({2}).to(device).clone().device() == device);
//   }
#pragma once
#include <catch2/catch.hpp>

#include "skip.h"

#define DEVICE_TEST_CASE(name, tags) DEVICE_TEST_CASE_WITH_BODY(INTERNAL_CATCH_UNIQUE_NAME(device_case_), name, tags)

#define DEVICE_TEST_CASE_WITH_BODY(body, name, tags)                                         \
  static void body(ember::Device device);                                                    \
  TEST_CASE(name " (checking device)", tags "[checked]") { body(ember::checked_device(0)); } \
  TEST_CASE(name " (cuda:0)", tags "[cuda][gpu]") {                                          \
    if (!skip::without_gpu()) body(ember::cuda_device(0));                                   \
  }                                                                                          \
  static void body(ember::Device device)
