// The timed comparison of the autocast exercise (autocast_speed.h).
#include "autocast_speed.h"

#include <algorithm>
#include <cmath>

using namespace ember;

namespace exercises::autocast_speed {

Result run(Device device, DType low_precision, const Model& shape, const bench::Settings& settings) {
  manual_seed(0);
  nn::Sequential model;
  for (int64_t layer = 0; layer < shape.layers; ++layer) {
    if (layer > 0) model->push_back(nn::ReLU());
    model->push_back(nn::Linear(shape.width, shape.width));
  }
  model->to(device);
  const Tensor input = randn({shape.batch, shape.width}).to(device);

  auto forward_float32 = [&] {
    InferenceMode inference;
    return model(input);
  };
  auto forward_autocast = [&] {
    InferenceMode inference;
    AutocastGuard autocast(device.type, low_precision);
    return model(input);
  };

  Result result;
  result.device = device;
  result.low_precision = low_precision;

  // Same input, outputs compared first: a fast wrong answer is not a speedup.
  const Tensor reference = forward_float32();
  const Tensor low = forward_autocast();
  result.autocast_output_dtype = low.dtype();
  const std::vector<float> expected = reference.to(kCPU).to_vector<float>();
  const std::vector<float> actual = low.to(kCPU).to_vector<float>();
  double largest = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    result.max_abs_error = std::max(result.max_abs_error, std::fabs(static_cast<double>(actual[i]) - expected[i]));
    largest = std::max(largest, std::fabs(static_cast<double>(expected[i])));
  }
  result.max_relative_error = result.max_abs_error / largest;

  auto synchronized = [&](auto forward) {
    return [&, forward](int64_t calls) {
      for (int64_t i = 0; i < calls; ++i) bench::keep(forward());
      if (device.is_cuda()) cuda::synchronize();
    };
  };
  const std::vector<bench::Stats> stats = bench::measure(
      {{"float32", synchronized(forward_float32)}, {"autocast", synchronized(forward_autocast)}}, settings);
  result.float32 = stats[0];
  result.autocast = stats[1];
  result.speedup = stats[0].median / stats[1].median;
  return result;
}

Finding finding(const Result& result) {
  if (!result.float32.reliable() || !result.autocast.reliable()) return Finding::TooBusy;
  if (result.autocast.p90 < result.float32.p10) return Finding::Faster;
  if (result.autocast.p10 > result.float32.p90) return Finding::Slower;
  return Finding::NoClearDifference;
}

}  // namespace exercises::autocast_speed
