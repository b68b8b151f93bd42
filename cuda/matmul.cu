// Matrix products on the GPU through cuBLAS, the library PyTorch's CUDA build calls too.
// cuBLAS is column-major and ember row-major, so C = A @ B is computed as C^T = B^T @ A^T: a
// row-major [M, N] buffer read column-major is the [N, M] matrix C^T. An operand stored row-major
// is already transposed from cuBLAS's point of view ("N"); one stored column-major (linear's
// weight.t()) is passed with "T". float16/bfloat16 operands accumulate in float32; float32 runs
// in full float32 unless TF32 is allowed (PyTorch's default since 1.12: not allowed).
#include <cublas_v2.h>

#include <mutex>

#include "cuda_backend.h"
#include "device_loops.cuh"
#include "kernels.h"

namespace ember::kernels::cuda {
namespace {

void check(cublasStatus_t status, const char* what) {
  EMBER_CHECK(status == CUBLAS_STATUS_SUCCESS, "CUDA error: cuBLAS ", what, " failed with status ",
              static_cast<int>(status));
}

cublasHandle_t handle_for(int device) {
  static std::mutex mutex;
  static cublasHandle_t handles[16] = {};
  std::lock_guard lock(mutex);
  EMBER_CHECK(device >= 0 && device < 16, "Invalid device index ", device);
  if (!handles[device]) {
    cudaSetDevice(device);
    check(cublasCreate(&handles[device]), "cublasCreate");
  }
  return handles[device];
}

cudaDataType_t cuda_type(DType dtype) {
  switch (dtype) {
    case DType::Float32: return CUDA_R_32F;
    case DType::Float64: return CUDA_R_64F;
    case DType::BFloat16: return CUDA_R_16BF;
    case DType::Float16: return CUDA_R_16F;
    default: break;
  }
  throw Error(str_cat("\"addmm_cuda\" not implemented for '", scalar_type_name(dtype), "'"));
}

// How cuBLAS sees one operand [B, rows, cols] stored with unit stride in one of its inner dims.
struct Operand {
  cublasOperation_t op;  // CUBLAS_OP_N when stored row-major (see the top of the file)
  int64_t leading_dimension;
  int64_t batch_stride;
};

Operand describe(const Tensor& t) {
  const bool row_major = t.stride(2) == 1 && t.stride(1) >= std::max<int64_t>(t.size(2), 1);
  const int64_t batch_stride = t.size(0) == 1 ? 0 : t.stride(0);
  if (row_major) return {CUBLAS_OP_N, std::max<int64_t>(t.stride(1), 1), batch_stride};
  return {CUBLAS_OP_T, std::max<int64_t>(t.stride(2), 1), batch_stride};
}

// Every row of the contiguous out [B, M, N] becomes the contiguous bias [N].
template <typename T>
void fill_rows_with(const Tensor& out, const Tensor& bias) {
  T* rows = static_cast<T*>(out.raw_data());
  const T* row = static_cast<const T*>(bias.raw_data());
  const int64_t n = bias.numel();
  launch_elements(
      out.numel(), [=] __device__(int64_t i) { rows[i] = row[i % n]; }, "gemm bias");
}

}  // namespace

void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  if (out.numel() == 0) return;
  if (bias.defined()) {  // out = bias (in every row) + alpha * a @ b, as the CPU kernel computes it
    visit_device_dtype(out.dtype(), [&](auto tag) { fill_rows_with<decltype(tag)>(out, bias); });
    beta = 1;
  }
  const cudaDataType_t type = cuda_type(out.dtype());
  const bool double_precision = out.dtype() == kFloat64;
  const cublasComputeType_t compute = double_precision ? CUBLAS_COMPUTE_64F
                                      : out.dtype() == kFloat32 && ::ember::cuda::matmul_allow_tf32()
                                          ? CUBLAS_COMPUTE_32F_FAST_TF32
                                          : CUBLAS_COMPUTE_32F;
  const double alpha64 = alpha, beta64 = beta;
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* alpha_ptr = double_precision ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta_ptr = double_precision ? static_cast<const void*>(&beta64) : &beta32;
  const Operand A = describe(a), B = describe(b);
  check(cublasGemmStridedBatchedEx(
            handle_for(out.device().index), B.op, A.op, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
            alpha_ptr, b.raw_data(), type, static_cast<int>(B.leading_dimension), B.batch_stride, a.raw_data(), type,
            static_cast<int>(A.leading_dimension), A.batch_stride, beta_ptr, out.raw_data(), type, static_cast<int>(N),
            M * N, static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT),
        "gemm");
}

}  // namespace ember::kernels::cuda
