// What every CUDA kernel in cuda/ shares, kept plain so a reader can follow each kernel:
//   - `visit_device_dtype`: a runtime DType to the device element type (__nv_bfloat16 and __half
//     for the 16-bit floats), converted with the CPU kernels' own `convert` (kernels/convert.h);
//   - `launch_elements(n, f)`: a grid-stride loop calling f(i) for i < n, the one launch pattern;
//   - `Strided<N>`: the byte offsets of element i in N tensors of the same sizes and any strides
//     (the CUDA twin of kernels/loops.h);
//   - `block_reduce`: the one reduction pattern (a tree in shared memory), used by every kernel
//     that reduces a row with one block of threads.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "core/tensor.h"
#include "kernels/convert.h"
#include "kernels/visit_dtype.h"

namespace ember::kernels::cuda {

// Whether EMBER_CUDA_SYNC=1 asks every kernel to be waited for (tools/gpu_run.sh sets it, with
// CUDA_LAUNCH_BLOCKING=1, for the GPU's test cases). Read once.
inline bool synchronize_each_kernel() {
  static const bool wanted = [] {
    const char* value = std::getenv("EMBER_CUDA_SYNC");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return wanted;
}

// After a launch: a launch error shows at once, but a fault inside the kernel shows only at the
// next call that waits for the GPU, and would be blamed on a later op. Under EMBER_CUDA_SYNC=1
// the kernel is waited for here, so a fault names the kernel that made it.
inline void check_launch(const char* kernel) {
  cudaError_t status = cudaGetLastError();
  EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (launching ", kernel, ")");
  if (!synchronize_each_kernel()) return;
  status = cudaDeviceSynchronize();
  EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (running ", kernel, ")");
}

// kernels/visit_dtype.h with CUDA's 16-bit types; visit_compute_dtype is the CPU kernels' own.
template <typename F>
decltype(auto) visit_device_dtype(DType dtype, F&& f) {
  return visit_dtype<__nv_bfloat16, __half>(dtype, std::forward<F>(f));
}

constexpr int kThreadsPerBlock = 256;

template <typename F>
__global__ void elements_kernel(int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) f(i);
}

// f(i) for every i < n: enough blocks to fill the GPU, each thread striding over the rest.
template <typename F>
void launch_elements(int64_t n, F f, const char* kernel) {
  if (n == 0) return;
  const int64_t blocks = std::min<int64_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock, 65536);
  elements_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(n, f);
  check_launch(kernel);
}

constexpr int kMaxDims = 8;

// N tensors with the sizes of the first (the others may broadcast: stride 0), by value into the
// kernel. data(k, i) is the address of element i (row-major over the sizes) of tensor k.
template <int N>
struct Strided {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t byte_strides[N][kMaxDims] = {};
  char* base[N] = {};

  explicit Strided(const std::array<Tensor, N>& tensors) {
    const Tensor& shape = tensors[0];
    EMBER_CHECK(shape.dim() <= kMaxDims, "ember: CUDA kernels take tensors of at most ", kMaxDims, " dimensions");
    dims = static_cast<int>(shape.dim());
    for (int d = 0; d < dims; ++d) sizes[d] = shape.size(d);
    for (int k = 0; k < N; ++k) {
      base[k] = static_cast<char*>(tensors[k].raw_data());
      for (int d = 0; d < dims; ++d) byte_strides[k][d] = tensors[k].stride(d) * tensors[k].element_size();
    }
  }

  __device__ void addresses(int64_t index, char* (&out)[N]) const {
    for (int k = 0; k < N; ++k) out[k] = base[k];
    for (int d = dims - 1; d >= 0; --d) {
      const int64_t i = index % sizes[d];
      index /= sizes[d];
      for (int k = 0; k < N; ++k) out[k] += i * byte_strides[k][d];
    }
  }
};

template <typename Out, typename... In, typename F, size_t... K>
__device__ void apply_at(char* const (&address)[1 + sizeof...(In)], const F& f, std::index_sequence<K...>) {
  *reinterpret_cast<Out*>(address[0]) = f(*reinterpret_cast<const In*>(address[K + 1])...);
}

// map_elements' own kernel: the same grid-stride loop as launch_elements, written out because
// nvcc cannot pass launch_elements an extended __device__ lambda defined inside a function
// template with a parameter pack (map_elements), so the loop body cannot be such a lambda here.
template <int N, typename Out, typename F, typename... In>
__global__ void map_kernel(int64_t n, Strided<N> layout, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x) {
    char* address[N];
    layout.addresses(i, address);
    apply_at<Out, In...>(address, f, std::index_sequence_for<In...>{});
  }
}

// out[i] = f(in...[i]) over tensors of out's sizes and any strides.
template <typename Out, typename... In, typename F>
void map_elements(const Tensor& out, const std::array<Tensor, sizeof...(In)>& inputs, F f, const char* kernel) {
  constexpr int N = 1 + sizeof...(In);
  const int64_t n = out.numel();
  if (n == 0) return;
  std::array<Tensor, N> all;
  all[0] = out;
  for (size_t k = 0; k < inputs.size(); ++k) all[k + 1] = inputs[k];
  const int64_t blocks = std::min<int64_t>((n + kThreadsPerBlock - 1) / kThreadsPerBlock, 65536);
  map_kernel<N, Out, F, In...><<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(n, Strided<N>(all), f);
  check_launch(kernel);
}

// The reduction pattern: each of the block's kThreadsPerBlock threads brings `value`; all of them
// get combine() over all values, by halving in shared memory (a tree, log2(256) = 8 steps).
// combine(left, right) always receives the lower thread's value on the left.
template <typename T, typename Combine>
__device__ T block_reduce(T value, Combine combine) {
  __shared__ alignas(16) char storage[kThreadsPerBlock * sizeof(T)];
  T* shared = reinterpret_cast<T*>(storage);
  shared[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kThreadsPerBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  const T result = shared[0];
  __syncthreads();  // the next call may overwrite shared[0]
  return result;
}

}  // namespace ember::kernels::cuda
