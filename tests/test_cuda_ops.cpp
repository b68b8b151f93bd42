// Every op on a device, forward and backward, against the same PyTorch fixture the CPU passes
// (tests/fixtures/ops.json): the inputs are built on the device with the same views (transposed,
// sliced, expanded, permuted), run through the same op runner, and compared on the host. The
// tolerance is ten times the CPU's: the GPU sums in another order and its exp/log differ by an ulp.
// The sweeps are tests/op_sweep.h's, which report each case on its own; the CPU runs them too, so
// what runs on the GPU is tested here. The device-generic cases run on the checking device
// everywhere and on the GPU where there is one (tests/device_cases.h). Products on the GPU are
// checked against what cuBLAS promises (tests/product_rounding.h), not against oneDNN's bits.
#include <catch2/catch.hpp>

#include "device_cases.h"
#include "fixture.h"
#include "op_sweep.h"
#include "product_rounding.h"
#include "skip.h"

using namespace ember;
using fixture::json;

namespace {

constexpr double kGpuTolerance = 10;  // times the CPU's rtol and atol (fixture.h)

const json& op_cases() { return fixture::load("ops.json")["cases"]; }

json with_gradients(const json& cases) {
  json chosen = json::array();
  for (const json& c : cases)
    if (c.contains("grads")) chosen.push_back(c);
  return chosen;
}

void report(const op_sweep::Report& report) {
  for (const std::string& failure : report.failures) FAIL_CHECK(failure);
}

}  // namespace

DEVICE_TEST_CASE("every op's output on the device matches PyTorch, contiguous and strided", "") {
  const op_sweep::Report outputs =
      op_sweep::run_each(op_cases(), [&](const json& c) { return op_sweep::check_outputs(c, device, kGpuTolerance); });
  report(outputs);
  CHECK(outputs.checked == op_cases().size());
}

DEVICE_TEST_CASE("every differentiable op's gradients on the device match PyTorch", "") {
  const json cases = with_gradients(op_cases());
  const op_sweep::Report gradients =
      op_sweep::run_each(cases, [&](const json& c) { return op_sweep::check_gradients(c, device, kGpuTolerance); });
  report(gradients);
  CHECK(gradients.checked == cases.size());
  CHECK(cases.size() > 300);
}

TEST_CASE("the GPU's op sweeps, run on the CPU, check every case and find no difference", "[cuda]") {
  const op_sweep::Report outputs =
      op_sweep::run_each(op_cases(), [](const json& c) { return op_sweep::check_outputs(c, kCPU, kGpuTolerance); });
  report(outputs);
  CHECK(outputs.checked == fixture::load("ops.json")["count"].get<size_t>());
  const json cases = with_gradients(op_cases());
  const op_sweep::Report gradients =
      op_sweep::run_each(cases, [](const json& c) { return op_sweep::check_gradients(c, kCPU, kGpuTolerance); });
  report(gradients);
  CHECK(gradients.checked == fixture::load("ops.json")["with_grads"].get<size_t>());
}

TEST_CASE("a case that throws in an op sweep is reported under its name, and the sweep goes on", "[cuda]") {
  json cases = json::array();
  for (const json& c : op_cases())
    if (cases.size() < 3 && c["op"] == "exp") cases.push_back(c);
  REQUIRE(cases.size() == 3);
  cases[1]["name"] = "exp_renamed_to_an_unknown_op";
  cases[1]["op"] = "no_such_op";
  cases[2]["output"]["data"][0] = 12345.0;  // a wrong expectation: a difference, not a throw
  const op_sweep::Report found =
      op_sweep::run_each(cases, [](const json& c) { return op_sweep::check_outputs(c, kCPU, kGpuTolerance); });
  CHECK(found.checked == 2);
  REQUIRE(found.failures.size() == 2);
  CHECK_THAT(found.failures[0], Catch::StartsWith("op case exp_renamed_to_an_unknown_op threw: "));
  CHECK_THAT(found.failures[1],
             Catch::StartsWith("op case " + cases[2]["name"].get<std::string>() + ": output 0: element 0: "));
}

DEVICE_TEST_CASE("a training step on the device matches the same step on the CPU", "") {
  auto train = [](Device device) {
    manual_seed(0);
    nn::Sequential model{nn::Linear(16, 32), nn::ReLU(), nn::Dropout(0.25), nn::Linear(32, 4)};
    nn::LayerNorm norm({4});
    model->to(device);
    norm->to(device);
    optim::SGD optimizer(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
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
  const std::vector<float> on_cpu = train(kCPU), on_gpu = train(device);
  for (size_t i = 0; i < on_cpu.size(); ++i) CHECK(on_gpu[i] == Approx(on_cpu[i]).epsilon(1e-4));
}

DEVICE_TEST_CASE("the device counts memory as torch.cuda does: 512-byte blocks, cached after free", "") {
  const int64_t start = memory_allocated(device);
  {
    Tensor one = ones({1}, Options(device));
    CHECK(memory_allocated(device) == start + 512);
    Tensor thousand = ones({1000}, Options(device));
    CHECK(memory_allocated(device) == start + 512 + 4096);
    CHECK(memory_reserved(device) >= 2 << 20);
  }
  CHECK(memory_allocated(device) == start);
  const int64_t reserved = memory_reserved(device);
  CHECK(reserved > 0);  // kept for reuse
  empty_cache();
  CHECK(memory_reserved(device) <= reserved);
}

TEST_CASE("float32 GPU products are float32 unless TF32 is allowed, and within TF32's promise when it is",
          "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  REQUIRE_FALSE(cuda::matmul_allow_tf32());
  // 1 + 2^-12 survives float32 but not TF32's 10-bit mantissa: without TF32 it must come back.
  const Tensor a = full({1, 1}, 1.0 + 0x1p-12).to(gpu), b = ones({1, 1}).to(gpu);
  CHECK(mm(a, b).to(kCPU).item<double>() == 1.0 + 0x1p-12);
  manual_seed(0);
  const Tensor x = randn({256, 256}), y = randn({256, 256});
  CHECK(product_rounding::within_promise(mm(x.to(gpu), y.to(gpu)), x, y) == "");
  // CUBLAS_COMPUTE_32F_FAST_TF32 permits TF32, it does not force it: cuBLAS may pick a float32
  // kernel (a 1x1x1 product often gets one), so either value of the tiny product keeps the promise.
  cuda::set_matmul_allow_tf32(true);
  const double tiny = mm(a, b).to(kCPU).item<double>();
  const Tensor with_tf32 = mm(x.to(gpu), y.to(gpu));
  cuda::set_matmul_allow_tf32(false);
  CHECK((tiny == 1.0 || tiny == 1.0 + 0x1p-12));
  CHECK(product_rounding::within_promise(with_tf32, x, y, {.operand_rounding = 0x1p-10}) == "");
}

TEST_CASE("bf16 and fp16 GPU products accumulate in float32 and round once", "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu(DeviceType::CUDA, 0);
  manual_seed(0);
  for (DType low : {kBFloat16, kFloat16}) {
    INFO(scalar_type_name(low));
    const Tensor a = ones({1, 4096}, Options(low)).to(gpu), b = ones({4096, 1}, Options(low)).to(gpu);
    CHECK(mm(a, b).to(kCPU).item<double>() == 4096.0);  // a 16-bit accumulator would stall at 256 or 2048
    const Tensor x = randn({64, 1024}).to(low), y = randn({1024, 48}).to(low);
    CHECK(product_rounding::within_promise(mm(x.to(gpu), y.to(gpu)), x, y) == "");
    CHECK(product_rounding::within_promise(mm(x.to(gpu), y.t().contiguous().to(gpu).t()), x, y) == "");
  }
}

TEST_CASE("a fused-bias product takes its workspace outside memory_allocated, as PyTorch's handle keeps one",
          "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu = cuda_device(0);
  const Tensor x = randn({64, 32}).to(gpu), w = randn({16, 32}).to(gpu), b = randn({16}).to(gpu);
  const Tensor warm_up = linear(x, w, b);  // makes the handles and the workspace
  const int64_t before = memory_allocated(gpu);
  reset_peak_memory_stats(gpu);
  const Tensor y = linear(x, w, b);
  CHECK(max_memory_allocated(gpu) == before + 64 * 16 * 4);  // the output alone
}

TEST_CASE("a fused-bias product reads offset views and bias slices of any alignment, and matches the CPU",
          "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu = cuda_device(0);
  manual_seed(0);
  // Each starts one float past an allocation: 4-byte aligned, where cublasLt assumes 256 by default.
  const Tensor rows = randn({64, 33}), weight = randn({16, 33}), biases = randn({17});
  const Tensor x = rows.narrow(1, 1, 32), w = weight.narrow(1, 1, 32), b = biases.narrow(0, 1, 16);
  const Tensor offset =
      linear(rows.to(gpu).narrow(1, 1, 32), weight.to(gpu).narrow(1, 1, 32), biases.to(gpu).narrow(0, 1, 16));
  CHECK(allclose(offset.to(kCPU), linear(x, w, b), 1e-4, 1e-5));
}
