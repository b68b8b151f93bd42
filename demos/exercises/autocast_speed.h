// The chapter's second exercise: measure what autocast buys. The same stack of Linear layers runs
// on the same input in float32 and under autocast (bf16 on the CPU; fp16 or bf16 on a GPU), with
// benchmarking discipline: both warmed up, the outputs compared before any time is trusted (max
// absolute and relative error), timings interleaved, reported as median and spread, the speedup
// as a ratio of medians. Whether autocast is faster depends on the hardware: a CPU without bf16
// instructions (cpu_capabilities()) pays for the casts and gains nothing in the products. What the
// exercise concludes comes from the measurement alone (finding()), never from the CPU's flags.
#pragma once
#include <cstdint>

#include "bench/harness.h"
#include "ember.h"

namespace exercises::autocast_speed {

struct Model {
  int64_t layers = 4;  // Linear(width, width) with a ReLU between each two
  int64_t width = 1024;
  int64_t batch = 256;
};

struct Result {
  ember::Device device;
  ember::DType low_precision = ember::kBFloat16;
  ember::DType autocast_output_dtype = ember::kFloat32;  // what the last Linear returned under autocast
  bench::Stats float32, autocast;                        // seconds per forward pass
  double speedup = 0;                                    // float32 median / autocast median
  double max_abs_error = 0;                              // max |autocast - float32| over the output
  double max_relative_error = 0;                         // max_abs_error / max |float32 output|
};

Result run(ember::Device device, ember::DType low_precision, const Model& model, const bench::Settings& settings);

// What the figures allow one to say. Faster or slower only when the two 10%-90% spreads do not
// overlap; nothing when either figure is unreliable (bench::Stats::reliable: measured on a busy
// machine, or spread too wide to trust its median).
enum class Finding { Faster, Slower, NoClearDifference, TooBusy };
Finding finding(const Result& result);

}  // namespace exercises::autocast_speed
