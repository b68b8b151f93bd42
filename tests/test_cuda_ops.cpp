// Every op on the GPU, forward and backward, against the same PyTorch fixture the CPU passes
// (tests/fixtures/ops.json): the inputs are built on cuda:0 with the same views (transposed,
// sliced, expanded, permuted), run through the same op runner, and compared on the host. The
// tolerance is ten times the CPU's: the GPU sums in another order and its exp/log differ by an ulp.
// Without a GPU each case is reported as skipped (tests/skip.h).
#include <catch2/catch.hpp>

#include <cmath>

#include "fixture.h"
#include "op_runner.h"
#include "skip.h"

using namespace ember;
using fixture::json;

constexpr double kGpuTolerance = 10;  // times the CPU's rtol and atol (fixture.h)

TEST_CASE("every op's output on the GPU matches PyTorch, contiguous and strided", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  int checked = 0;
  for (const json& c : fixture::load("ops.json")["cases"]) {
    INFO("case " << c["name"].get<std::string>());
    std::vector<Tensor> inputs;
    for (const json& spec : c["inputs"]) inputs.push_back(fixture::make(spec, false, nullptr, gpu));
    std::vector<Tensor> outputs = fixture::run_op(c["op"], inputs, c["args"]);
    const json& expected = c["output"];
    for (size_t i = 0; i < outputs.size(); ++i) {
      CHECK(outputs[i].device() == gpu);
      const json& want = expected.is_array() ? expected[i] : expected;
      CHECK(fixture::compare_loosely(outputs[i].to(kCPU), want, kGpuTolerance) == "");
    }
    ++checked;
  }
  CHECK(checked == static_cast<int>(fixture::load("ops.json")["cases"].size()));
}

TEST_CASE("every differentiable op's gradients on the GPU match PyTorch", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  int checked = 0;
  for (const json& c : fixture::load("ops.json")["cases"]) {
    if (!c.contains("grads")) continue;
    INFO("case " << c["name"].get<std::string>());
    std::vector<Tensor> inputs, bases;
    for (const json& spec : c["inputs"]) {
      Tensor base;
      inputs.push_back(fixture::make(spec, /*requires_grad=*/true, &base, gpu));
      bases.push_back(base);
    }
    Tensor out = fixture::run_op(c["op"], inputs, c["args"])[0];
    REQUIRE(out.requires_grad());
    out.backward(fixture::make(c["grad_output"], false, nullptr, gpu));
    for (size_t i = 0; i < bases.size(); ++i) {
      const json& expected = c["grads"][i];
      if (expected.is_null()) continue;
      INFO("gradient of input " << i);
      REQUIRE(bases[i].grad().defined());
      CHECK(bases[i].grad().device() == gpu);
      CHECK(fixture::compare_loosely(bases[i].grad().to(kCPU), expected, kGpuTolerance) == "");
    }
    ++checked;
  }
  CHECK(checked > 300);
}

TEST_CASE("a training step on the GPU matches the same step on the CPU", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  auto train = [](Device device) {
    manual_seed(0);
    nn::Sequential model{nn::Linear(16, 32), nn::ReLU(), nn::Dropout(0.25), nn::Linear(32, 4)};
    nn::LayerNorm norm({4});
    model.to(device);
    norm.to(device);
    optim::SGD optimizer(model.parameters(), {.lr = 0.1, .momentum = 0.9});
    const Tensor x = randn({8, 16}).to(device);
    const Tensor y = randint(0, 4, {8}).to(device);
    std::vector<float> losses;
    for (int step = 0; step < 3; ++step) {
      optimizer.zero_grad();
      Tensor loss = cross_entropy(norm(model(x)), y);
      loss.backward();
      optimizer.step();
      losses.push_back(loss.item<float>());
    }
    return losses;
  };
  const std::vector<float> on_cpu = train(kCPU), on_gpu = train(gpu);
  for (size_t i = 0; i < on_cpu.size(); ++i) CHECK(on_gpu[i] == Approx(on_cpu[i]).epsilon(1e-4));
}

TEST_CASE("the GPU counts memory as torch.cuda does: 512-byte blocks, cached after free", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  const int64_t start = memory_allocated(gpu);
  {
    Tensor one = ones({1}, Options(gpu));
    CHECK(memory_allocated(gpu) == start + 512);
    Tensor thousand = ones({1000}, Options(gpu));
    CHECK(memory_allocated(gpu) == start + 512 + 4096);
    CHECK(cuda::memory_stats(0).reserved >= 2 << 20);
  }
  CHECK(memory_allocated(gpu) == start);
  const int64_t reserved = cuda::memory_stats(0).reserved;
  CHECK(reserved > 0);  // kept for reuse
  cuda::empty_cache();
  CHECK(cuda::memory_stats(0).reserved <= reserved);
}

TEST_CASE("float32 GPU products run without TF32 unless it is allowed", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  REQUIRE_FALSE(cuda::matmul_allow_tf32());
  // 1 + 2^-12 survives float32 but not TF32's 10-bit mantissa.
  const Tensor a = full({1, 1}, 1.0 + 0x1p-12).to(gpu), b = ones({1, 1}).to(gpu);
  CHECK(mm(a, b).to(kCPU).item<double>() == 1.0 + 0x1p-12);
  cuda::set_matmul_allow_tf32(true);
  const double with_tf32 = mm(a, b).to(kCPU).item<double>();
  cuda::set_matmul_allow_tf32(false);
  CHECK(with_tf32 == 1.0);
}

TEST_CASE("bf16 and fp16 GPU products accumulate in float32", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  for (DType low : {kBFloat16, kFloat16}) {
    const Tensor a = ones({1, 4096}, Options(low)).to(gpu), b = ones({4096, 1}, Options(low)).to(gpu);
    CHECK(mm(a, b).to(kCPU).item<double>() == 4096.0);  // a 16-bit accumulator would stall at 256 or 2048
  }
}
