// A device's plumbing: device memory through the caching allocator, copies between devices, and
// PyTorch's device-mismatch errors (every op on a device: test_cuda_ops.cpp). The device-generic
// cases run on the checking device everywhere and on the GPU where there is one
// (tests/device_cases.h); a case that needs a GPU where there is none (or the reverse) is reported
// as skipped (tests/skip.h).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "device_cases.h"
#ifdef EMBER_WITH_CUDA
#include "cuda/blas_handles.h"
#endif

using namespace ember;

namespace {

bool process_has_mapped(const std::string& library) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find(library) != std::string::npos;
}

}  // namespace

TEST_CASE("without a GPU, asking for CUDA memory is a clear error", "[cuda]") {
  if (skip::with_gpu()) return;
#ifdef EMBER_WITH_CUDA
  // PyTorch's text, then the CUDA runtime's own reason.
  CHECK_THROWS_WITH(zeros({2}, Options(cuda_device(0))),
                    Catch::StartsWith("No CUDA GPUs are available (CUDA runtime: "));
#else
  CHECK_THROWS_WITH(zeros({2}, Options(cuda_device(0))), "Torch not compiled with CUDA enabled");
#endif
}

TEST_CASE("cuBLAS is loaded by the first product on a GPU, not when the program starts", "[cuda]") {
#ifdef EMBER_WITH_CUDA
  // Linked the usual way it would cost every program ~70 ms at start-up (cuda/cublas_library.h).
  // Each case runs in a process of its own under CTest; in one run of every case, a GPU product
  // of an earlier case may have loaded it: then the map must show it.
  Tensor cpu_product = mm(ones({2, 3}), ones({3, 2}));
  CHECK(process_has_mapped("libcublas") == kernels::cuda::cublas_loaded());
  if (!cuda::is_available()) {
    CHECK_FALSE(kernels::cuda::cublas_loaded());
    return;
  }
  Tensor gpu_product = mm(ones({2, 3}, Options(cuda_device(0))), ones({3, 2}, Options(cuda_device(0))));
  CHECK(kernels::cuda::cublas_loaded());
  CHECK(process_has_mapped("libcublas"));
#else
  CHECK_FALSE(process_has_mapped("libcublas"));
#endif
}

DEVICE_TEST_CASE("tensors move to the device and back, counted by the device's allocator", "") {
  const int64_t start = memory_allocated(device);
  Tensor host = arange(12.).reshape({3, 4});
  Tensor moved = host.t().to(device);
  CHECK(moved.device() == device);
  CHECK(memory_allocated(device) == start + 512);  // 48 bytes take one 512-byte block, as in torch.cuda
  CHECK(moved.to(kCPU).tolist_str() == host.t().tolist_str());
  CHECK(moved.str() == "tensor([[ 0.,  4.,  8.],\n        [ 1.,  5.,  9.],\n        [ 2.,  6., 10.],\n"
                       "        [ 3.,  7., 11.]], device='" +
                           device.str() + "')");
  moved = Tensor();
  CHECK(memory_allocated(device) == start);
}

DEVICE_TEST_CASE("mixing devices raises PyTorch's device-mismatch error", "") {
  Tensor on_gpu = ones({2, 2}, Options(device));
  Tensor on_cpu = ones({2, 2});
  const std::string prefix = "Expected all tensors to be on the same device, but found at least two devices, ";
  const std::string gpu = device.str();
  // Element-wise ops (TensorIterator): the short form.
  CHECK_THROWS_WITH(on_gpu + on_cpu, prefix + gpu + " and cpu!");
  // mm, addmm, bmm (the generated device guard): the argument and the wrapper are named.
  CHECK_THROWS_WITH(mm(on_gpu, on_cpu), prefix + gpu +
                                            " and cpu! (when checking argument for argument mat2 in method "
                                            "wrapper_mm)");
  // The chapter's case: a model moved to the GPU, its input left on the CPU. linear is
  // addmm(bias, input, weight.t()): the bias sets the device, the input is mat1.
  nn::Linear layer(2, 2);
  layer->to(device);
  CHECK_THROWS_WITH(layer(on_cpu), prefix + gpu +
                                       " and cpu! (when checking argument for argument mat1 in method "
                                       "wrapper_addmm)");
  CHECK_THROWS_WITH(bmm(on_gpu.unsqueeze(0), on_cpu.unsqueeze(0)),
                    prefix + gpu + " and cpu! (when checking argument for argument mat2 in method wrapper_bmm)");
}

DEVICE_TEST_CASE("sampling into a non-contiguous device tensor is refused: ember fills through a CPU copy",
                 "[errors]") {
  Tensor on_gpu = zeros({4, 4}).to(device);
  Tensor transposed = on_gpu.t();
  CHECK_THROWS_WITH(uniform_(transposed), "ember samples a CUDA tensor on the CPU and copies the values over, "
                                          "which needs a contiguous tensor");
  CHECK(on_gpu.to(kCPU).sum().item<float>() == 0.0f);
}

DEVICE_TEST_CASE("layer_norm and nll_loss name the argument left on the CPU, as PyTorch's device guard does",
                 "[errors]") {
  const std::string prefix = "Expected all tensors to be on the same device, but found at least two devices, " +
                             device.str() + " and cpu! (when checking argument for argument ";
  const Tensor x = ones({2, 4}, Options(device));
  CHECK_THROWS_WITH(layer_norm(x, {4}, ones({4})), prefix + "weight in method wrapper__native_layer_norm)");
  CHECK_THROWS_WITH(layer_norm(x, {4}, ones({4}, Options(device)), zeros({4})),
                    prefix + "bias in method wrapper__native_layer_norm)");
  CHECK_THROWS_WITH(nll_loss(x, zeros({2}, kInt64)), prefix + "target in method wrapper_nll_loss_forward)");
}

// TensorIterator's rule: the common device is the first operand's that is not a 0-dim CPU tensor,
// the result is made there, and a 0-dim CPU operand (or a number) reaches the device's kernel by
// value, not by a copy from the host.
DEVICE_TEST_CASE("a number or a 0-dim CPU tensor joins a device op by value, and the result is on the device", "") {
  const Tensor x = arange(3.).to(device);
  const Tensor two = scalar_tensor(2.0, kFloat64);  // on the CPU, like torch.tensor(2.0)
  Tensor in_place = x.clone();
  profiler::Profiler prof;
  const std::vector<Tensor> results{x * 2, two * x, 1 - x, gt(x, two), where(gt(x, 0), two, x), addcmul(two, x, two)};
  in_place.mul_(two);
  prof.stop();
  for (const Tensor& t : results) CHECK(t.device() == device);
  CHECK(results[1].to(kCPU).tolist_str() == "[0.0, 2.0, 4.0]");
  CHECK(results[2].to(kCPU).tolist_str() == "[1.0, 0.0, -1.0]");
  CHECK(results[4].to(kCPU).tolist_str() == "[0.0, 2.0, 2.0]");
  CHECK(results[5].to(kCPU).tolist_str() == "[2.0, 4.0, 6.0]");
  CHECK(in_place.to(kCPU).tolist_str() == "[0.0, 2.0, 4.0]");
  for (const profiler::Event& event : prof.events().events()) {
    INFO(event.name);
    CHECK((event.name != "aten::to" && event.name != "aten::copy_"));  // nothing crossed from the host
  }
  // Only a 0-dim CPU operand joins: any other CPU operand is refused, wherever it stands; and the
  // output of an in-place op is never one (it would be written on the host).
  const std::string mismatch =
      "Expected all tensors to be on the same device, but found at least two devices, " + device.str() + " and cpu!";
  CHECK_THROWS_WITH(where(gt(x, 0), two, ones({3}, kFloat64)), mismatch);
  Tensor cpu_scalar = scalar_tensor(1.0, kFloat64);
  CHECK_THROWS_WITH(cpu_scalar.add_(x.sum()), mismatch);
  CHECK_THROWS_WITH(cpu_scalar.addcmul_(x.sum(), x.sum()), mismatch);
}
