// The CUDA side as far as this stage of ember goes: device memory through the counting allocator,
// copies between devices, and PyTorch's device-mismatch error. A case that needs a GPU where
// there is none (or the reverse) is reported as skipped (tests/skip.h).
#include <catch2/catch.hpp>

#include "skip.h"

using namespace ember;

TEST_CASE("without a GPU, asking for CUDA memory is a clear error", "[cuda]") {
  if (skip::with_gpu()) return;
#ifdef EMBER_WITH_CUDA
  CHECK_THROWS_WITH(zeros({2}, Options(cuda_device(0))), "No CUDA GPUs are available");
#else
  CHECK_THROWS_WITH(zeros({2}, Options(cuda_device(0))), "Torch not compiled with CUDA enabled");
#endif
}

TEST_CASE("tensors move to the GPU and back, counted by the CUDA allocator", "[cuda]") {
  if (skip::without_gpu()) return;
  const Device gpu = cuda_device(0);
  const int64_t start = memory_allocated(gpu);
  Tensor host = arange(12.).reshape({3, 4});
  Tensor device = host.t().to(gpu);
  CHECK(device.device() == gpu);
  CHECK(memory_allocated(gpu) == start + 48);
  CHECK(device.to(kCPU).tolist_str() == host.t().tolist_str());
  CHECK(device.str() == "tensor([[ 0.,  4.,  8.],\n        [ 1.,  5.,  9.],\n        [ 2.,  6., 10.],\n"
                        "        [ 3.,  7., 11.]], device='cuda:0')");
  device = Tensor();
  CHECK(memory_allocated(gpu) == start);
}

TEST_CASE("mixing devices raises PyTorch's device-mismatch error", "[cuda]") {
  if (skip::without_gpu()) return;
  Tensor on_gpu = ones({2, 2}, Options(cuda_device(0)));
  Tensor on_cpu = ones({2, 2});
  const char* message =
      "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
  CHECK_THROWS_WITH(on_gpu + on_cpu, message);
  CHECK_THROWS_WITH(mm(on_gpu, on_cpu), message);
  CHECK_THROWS_WITH(linear(on_gpu, on_cpu), message);
}

TEST_CASE("an op whose CUDA kernel is not written yet names the missing kernel", "[cuda][errors]") {
  if (skip::without_gpu()) return;
  Tensor a = ones({2, 2}).to(cuda_device(0));
  CHECK_THROWS_WITH(mm(a, a), "ember: 'gemm' has no CUDA kernel yet");
}

TEST_CASE("sampling into a non-contiguous CUDA tensor is refused: ember fills through a CPU copy", "[cuda][errors]") {
  if (skip::without_gpu()) return;
  Tensor on_gpu = zeros({4, 4}).to(cuda_device(0));
  Tensor transposed = on_gpu.t();
  CHECK_THROWS_WITH(uniform_(transposed), "ember samples a CUDA tensor on the CPU and copies the values over, "
                                          "which needs a contiguous tensor");
  CHECK(on_gpu.to(kCPU).sum().item<float>() == 0.0f);
}
