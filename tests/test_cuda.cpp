// The CUDA side's plumbing: device memory through the caching allocator, copies between devices,
// and PyTorch's device-mismatch errors (every op on the GPU: test_cuda_ops.cpp). A case that
// needs a GPU where there is none (or the reverse) is reported as skipped (tests/skip.h).
#include <catch2/catch.hpp>

#include "skip.h"

using namespace ember;

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

TEST_CASE("tensors move to the GPU and back, counted by the CUDA allocator", "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  const Device gpu = cuda_device(0);
  const int64_t start = memory_allocated(gpu);
  Tensor host = arange(12.).reshape({3, 4});
  Tensor device = host.t().to(gpu);
  CHECK(device.device() == gpu);
  CHECK(memory_allocated(gpu) == start + 512);  // 48 bytes take one 512-byte block, as in torch.cuda
  CHECK(device.to(kCPU).tolist_str() == host.t().tolist_str());
  CHECK(device.str() == "tensor([[ 0.,  4.,  8.],\n        [ 1.,  5.,  9.],\n        [ 2.,  6., 10.],\n"
                        "        [ 3.,  7., 11.]], device='cuda:0')");
  device = Tensor();
  CHECK(memory_allocated(gpu) == start);
}

TEST_CASE("mixing devices raises PyTorch's device-mismatch error", "[cuda][gpu]") {
  if (skip::without_gpu()) return;
  Tensor on_gpu = ones({2, 2}, Options(cuda_device(0)));
  Tensor on_cpu = ones({2, 2});
  const std::string prefix = "Expected all tensors to be on the same device, but found at least two devices, ";
  // Element-wise ops (TensorIterator): the short form.
  CHECK_THROWS_WITH(on_gpu + on_cpu, prefix + "cuda:0 and cpu!");
  // mm, addmm, bmm (the generated device guard): the argument and the wrapper are named.
  CHECK_THROWS_WITH(mm(on_gpu, on_cpu), prefix + "cuda:0 and cpu! (when checking argument for argument mat2 in method "
                                                 "wrapper_mm)");
  // The chapter's case: a model moved to the GPU, its input left on the CPU. linear is
  // addmm(bias, input, weight.t()): the bias sets the device, the input is mat1.
  nn::Linear layer(2, 2);
  layer.to(cuda_device(0));
  CHECK_THROWS_WITH(layer(on_cpu), prefix + "cuda:0 and cpu! (when checking argument for argument mat1 in method "
                                            "wrapper_addmm)");
  CHECK_THROWS_WITH(bmm(on_gpu.unsqueeze(0), on_cpu.unsqueeze(0)),
                    prefix + "cuda:0 and cpu! (when checking argument for argument mat2 in method wrapper_bmm)");
}

TEST_CASE("sampling into a non-contiguous CUDA tensor is refused: ember fills through a CPU copy",
          "[cuda][errors][gpu]") {
  if (skip::without_gpu()) return;
  Tensor on_gpu = zeros({4, 4}).to(cuda_device(0));
  Tensor transposed = on_gpu.t();
  CHECK_THROWS_WITH(uniform_(transposed), "ember samples a CUDA tensor on the CPU and copies the values over, "
                                          "which needs a contiguous tensor");
  CHECK(on_gpu.to(kCPU).sum().item<float>() == 0.0f);
}
