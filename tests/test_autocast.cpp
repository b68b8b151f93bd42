// Autocast as the chapter shows it (engine/autocast.h): inside a CPU bf16 region the matrix
// products run in bfloat16, the numerically sensitive ops in float32, weights are cast once per
// region, and backward brings float32 gradients back to float32 weights.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "captured_warnings.h"
#include "device_cases.h"
#include "fixture.h"
#include "product_rounding.h"
#include "skip.h"

using namespace ember;

namespace {

Tensor cosine_ramp(const Dims& sizes, DType dtype = kFloat32) {
  std::vector<double> values(product(sizes));
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.1 * std::cos(0.3 + 1.3 * static_cast<double>(i));
  return from_vector(values, sizes, dtype);
}

}  // namespace

TEST_CASE("under CPU autocast the matrix products run in bfloat16", "[autocast]") {
  Tensor x = cosine_ramp({4, 8}), w = cosine_ramp({3, 8}), b = cosine_ramp({3}), m = cosine_ramp({8, 5});
  AutocastGuard autocast(DeviceType::CPU);
  CHECK(autocast::is_enabled(DeviceType::CPU));
  CHECK(autocast::get_dtype(DeviceType::CPU) == kBFloat16);
  CHECK(linear(x, w, b).dtype() == kBFloat16);
  CHECK(mm(x, m).dtype() == kBFloat16);
  CHECK(matmul(x, m).dtype() == kBFloat16);
  CHECK(addmm(cosine_ramp({4, 5}), x, m).dtype() == kBFloat16);
  CHECK(bmm(cosine_ramp({2, 4, 8}), cosine_ramp({2, 8, 5})).dtype() == kBFloat16);
  // The bf16 result is the float32 product rounded: within bfloat16's precision of it.
  Tensor exact = [&] {
    AutocastGuard off(DeviceType::CPU, std::nullopt, /*enabled=*/false);
    return mm(x, m);
  }();
  CHECK(allclose(mm(x, m).to(kFloat32), exact, 1e-2, 1e-3));
}

TEST_CASE("under CPU autocast softmax, layer_norm and the losses run in float32", "[autocast]") {
  Tensor x16 = cosine_ramp({4, 6}, kBFloat16);
  AutocastGuard autocast(DeviceType::CPU);
  CHECK(softmax(x16, 1).dtype() == kFloat32);
  CHECK(log_softmax(x16, 1).dtype() == kFloat32);
  CHECK(layer_norm(x16, {6}).dtype() == kFloat32);
  CHECK(mse_loss(x16, cosine_ramp({4, 6})).dtype() == kFloat32);
  CHECK(cross_entropy(x16, from_vector(std::vector<int64_t>{0, 1, 2, 3}, {4})).dtype() == kFloat32);
  CHECK(x16.exp().dtype() == kFloat32);
  CHECK(x16.sum().dtype() == kFloat32);
}

TEST_CASE("under CPU autocast cat promotes, float64 and integers are never cast", "[autocast]") {
  AutocastGuard autocast(DeviceType::CPU);
  CHECK(cat({cosine_ramp({2, 3}, kBFloat16), cosine_ramp({2, 3})}).dtype() == kFloat32);
  CHECK(cat({cosine_ramp({2, 3}, kBFloat16), cosine_ramp({2, 3}, kBFloat16)}).dtype() == kBFloat16);
  CHECK(stack({cosine_ramp({3}, kBFloat16), cosine_ramp({3})}).dtype() == kFloat32);
  CHECK(mm(cosine_ramp({2, 3}, kFloat64), cosine_ramp({3, 2}, kFloat64)).dtype() == kFloat64);
  CHECK(mm(ones({2, 3}, kInt64), ones({3, 2}, kInt64)).dtype() == kInt64);
}

TEST_CASE("ops outside the autocast lists keep normal type promotion", "[autocast]") {
  Tensor half = cosine_ramp({3}, kBFloat16), full = cosine_ramp({3});
  CHECK((half + full).dtype() == kFloat32);
  AutocastGuard autocast(DeviceType::CPU);
  CHECK((half + full).dtype() == kFloat32);
  CHECK((half * half).dtype() == kBFloat16);
  CHECK(relu(half).dtype() == kBFloat16);
}

TEST_CASE("an inner autocast(enabled=false) block restores the outer state when it ends", "[autocast]") {
  nn::Linear lin(8, 3);
  Tensor x = cosine_ramp({4, 8});
  AutocastGuard outer(DeviceType::CPU);
  Tensor activations = lin(x);
  CHECK(activations.dtype() == kBFloat16);
  {
    AutocastGuard inner(DeviceType::CPU, std::nullopt, /*enabled=*/false);
    CHECK_FALSE(autocast::is_enabled(DeviceType::CPU));
    // bf16 activations meet float32 weights: PyTorch's dtype error, not a silent cast.
    CHECK_THROWS_WITH(lin(cosine_ramp({4, 8}, kBFloat16)), "mat1 and mat2 must have the same dtype");
    CHECK(lin(x).dtype() == kFloat32);
  }
  CHECK(autocast::is_enabled(DeviceType::CPU));
  CHECK(lin(x).dtype() == kBFloat16);
}

TEST_CASE("autocast regions leave everything as it was when they end", "[autocast]") {
  const Device checked = checked_device(0);
  const Tensor a = cosine_ramp({2, 2}).to(checked), b = cosine_ramp({2, 2}).to(checked);
  CHECK_FALSE(autocast::is_enabled(DeviceType::Checked));
  {
    AutocastGuard outer(DeviceType::Checked, kBFloat16);
    {
      AutocastGuard inner(DeviceType::Checked, kFloat16);
      CHECK(autocast::get_dtype(DeviceType::Checked) == kFloat16);
    }
    CHECK(autocast::get_dtype(DeviceType::Checked) == kBFloat16);
    CHECK(mm(a, b).dtype() == kBFloat16);
  }
  CHECK_FALSE(autocast::is_enabled(DeviceType::Checked));
  CHECK(autocast::get_dtype(DeviceType::Checked) == kFloat16);
  CHECK(mm(a, b).dtype() == kFloat32);
}

DEVICE_TEST_CASE("under a device's autocast products run in float16 (or bf16 when asked), softmax in float32",
                 "[autocast]") {
  const Tensor a = cosine_ramp({4, 4}).to(device), b = cosine_ramp({4, 4}).to(device);
  {
    AutocastGuard autocast(device.type);  // float16 by default on CUDA
    CHECK(mm(a, b).dtype() == kFloat16);
    CHECK(softmax(mm(a, b), 1).dtype() == kFloat32);
    CHECK(mm(cosine_ramp({4, 4}), cosine_ramp({4, 4})).dtype() == kFloat32);  // CPU tensors: not this region's device
  }
  {
    AutocastGuard autocast(device.type, kBFloat16);
    const Tensor product = mm(a, b);
    CHECK(product.dtype() == kBFloat16);
    // cuBLAS sums the bf16 operands in float32 and rounds once: within that promise of the exact
    // product, not necessarily oneDNN's bits (tests/product_rounding.h).
    const Tensor a16 = cosine_ramp({4, 4}).to(kBFloat16), b16 = cosine_ramp({4, 4}).to(kBFloat16);
    CHECK(product_rounding::within_promise(product, a16, b16) == "");
  }
}

TEST_CASE("float32 weights get float32 gradients through autocast's casts", "[autocast][autograd]") {
  nn::Linear lin(8, 3);
  Tensor x = cosine_ramp({4, 8});
  {
    AutocastGuard autocast(DeviceType::CPU);
    Tensor out = lin(x);
    CHECK(out.dtype() == kBFloat16);
    out.sum().backward();
  }
  REQUIRE(lin->weight().grad().defined());
  CHECK(lin->weight().grad().dtype() == kFloat32);
  CHECK(lin->bias().grad().dtype() == kFloat32);
  // d sum(x W^T + b) / d b = 4 for every output (exact in bf16 too).
  CHECK(lin->bias().grad().tolist_str() == "[4.0, 4.0, 4.0]");
}

TEST_CASE("a weight is cast once per autocast region, however often it is used", "[autocast]") {
  nn::Linear lin(8, 3);
  Tensor x = cosine_ramp({4, 8});
  AutocastGuard autocast(DeviceType::CPU);
  CHECK(autocast::cache_size() == 0);
  Tensor first = lin(x), second = lin(x);
  CHECK(autocast::cache_size() == 2);  // the weight and the bias, not the activation
  // Both products read the same cast weight: the same ToCopyBackward0 node behind weight.t().
  auto cast_of_weight = [](const Tensor& out) {
    auto t_node = out.grad_fn()->next_edges[2].node;  // AddmmBackward0 -> TBackward0
    return t_node->next_edges[0].node;                // -> ToCopyBackward0 of the weight
  };
  CHECK(cast_of_weight(first)->name() == "ToCopyBackward0");
  CHECK(cast_of_weight(first) == cast_of_weight(second));
}

TEST_CASE("a weight changed in place inside the region is cast again (the cache is keyed by version)", "[autocast]") {
  nn::Linear lin(8, 3);
  Tensor x = cosine_ramp({4, 8});
  AutocastGuard autocast(DeviceType::CPU);
  Tensor before = lin(x);
  {
    NoGradGuard no_grad;
    lin->weight().add_(1.0);  // an optimizer step inside the region
  }
  Tensor after = lin(x);
  Tensor expected = [&] {
    AutocastGuard off(DeviceType::CPU, std::nullopt, false);
    return linear(x, lin->weight(), lin->bias());
  }();
  CHECK(allclose(after.to(kFloat32), expected.detach(), 2e-2, 2e-2));
  CHECK_FALSE(allclose(before.to(kFloat32), after.to(kFloat32), 2e-2, 2e-2));
}

TEST_CASE("the cast cache empties when the outermost region ends", "[autocast]") {
  nn::Linear lin(8, 3);
  Tensor x = cosine_ramp({4, 8});
  std::shared_ptr<autograd::Node> first_cast;
  {
    AutocastGuard outer(DeviceType::CPU);
    {
      AutocastGuard inner(DeviceType::CPU);
      first_cast = lin(x).grad_fn()->next_edges[2].node->next_edges[0].node;
    }
    CHECK(autocast::cache_size() == 2);  // an inner region's end keeps the cache
  }
  CHECK(autocast::cache_size() == 0);
  AutocastGuard next(DeviceType::CPU);
  CHECK(lin(x).grad_fn()->next_edges[2].node->next_edges[0].node != first_cast);
}

TEST_CASE("the chapter's network under bf16 autocast is within bf16 precision of float32 and of PyTorch",
          "[autocast][chapter]") {
  const fixture::json& expected = fixture::load("autocast.json");
  manual_seed(0);
  nn::Sequential big{nn::Linear(512, 512), nn::ReLU(), nn::Linear(512, 512)};
  Tensor xb = randn({256, 512});
  NoGradGuard no_grad;
  Tensor fp32 = big(xb);
  Tensor bf16;
  {
    AutocastGuard autocast(DeviceType::CPU, kBFloat16);
    bf16 = big(xb);
  }
  CHECK(bf16.dtype() == kBFloat16);
  CHECK(expected["dtype"] == "bfloat16");
  // ember's float32 output is PyTorch's (same weights, same input, bit-exact RNG).
  const int64_t rows = expected["rows"];
  const std::vector<float> fp32_rows = fp32.narrow(0, 0, rows).to_vector<float>();
  REQUIRE(expected["fp32_rows"].size() == fp32_rows.size());
  for (size_t i = 0; i < fp32_rows.size(); ++i)
    CHECK(fp32_rows[i] == Approx(expected["fp32_rows"][i].get<double>()).margin(1e-5));
  CHECK(fp32.to(kFloat64).sum().item<double>() == Approx(expected["fp32_sum"].get<double>()).epsilon(1e-6));
  // The bf16 error is at bf16's level: like PyTorch's, around 1e-2 of the output's scale.
  const double scale = expected["output_scale"];
  const Tensor difference = bf16.to(kFloat32) - fp32;
  const double error = std::max(difference.max().item<double>(), -difference.min().item<double>());
  CHECK(error / scale < 1e-2);
  CHECK(error / scale > 1e-4);  // it really ran in bf16
  CHECK(error <= 2 * expected["max_abs_diff"].get<double>());
  // And close to PyTorch's own bf16 output, element by element (each can differ by a bf16 ulp
  // or two: oneDNN and PyTorch sum the float32 partial products in different orders).
  const std::vector<float> bf16_rows = bf16.narrow(0, 0, rows).to_vector<float>();
  REQUIRE(expected["bf16_rows"].size() == bf16_rows.size());
  for (size_t i = 0; i < bf16_rows.size(); ++i)
    CHECK(std::fabs(bf16_rows[i] - expected["bf16_rows"][i].get<double>()) <= 8e-3 * scale);
  CHECK(bf16.to(kFloat64).sum().item<double>() == Approx(expected["bf16_sum"].get<double>()).epsilon(5e-3));
}

TEST_CASE("cpu_capabilities reads what /proc/cpuinfo reports", "[autocast]") {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0) {
      flags = line + " ";
      break;
    }
  if (flags.empty()) return;  // not Linux on x86: nothing to compare with
  auto has = [&](const std::string& flag) { return flags.find(" " + flag + " ") != std::string::npos; };
  const CpuCapabilities& caps = cpu_capabilities();
  CHECK(caps.avx2 == has("avx2"));
  CHECK(caps.avx512f == has("avx512f"));
  CHECK(caps.avx512_bf16 == has("avx512_bf16"));
  CHECK(caps.amx_bf16 == has("amx_bf16"));
  CHECK(caps.f16c == has("f16c"));
  CHECK_FALSE(caps.str().empty());
}
