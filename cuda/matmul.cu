// Matrix products on the GPU through cuBLAS, the library PyTorch's CUDA build calls too.
// cuBLAS is column-major and ember row-major, so C = A @ B is computed as C^T = B^T @ A^T: a
// row-major [M, N] buffer read column-major is the [N, M] matrix C^T. An operand stored row-major
// is already transposed from cuBLAS's point of view ("N"); one stored column-major (linear's
// weight.t()) is passed with "T". float16/bfloat16 operands accumulate in float32, and where
// cuBLAS splits the sum over K its partial sums are added in float32 too
// (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, PyTorch's behaviour with
// allow_{fp16,bf16}_reduced_precision_reduction off; its default lets them round to 16 bits
// first), so a 16-bit product is its float32 sum rounded once. float32 runs in full float32
// unless TF32 is allowed (PyTorch's default since 1.12: not allowed).
//
// addmm with a 1-D bias (every Linear layer) takes PyTorch's fused path (Blas.cpp,
// useLtInterface): one cublasLt call adds the bias in the GEMM's epilogue, as the product is
// written, instead of first writing the bias into every row and then accumulating onto it. As
// PyTorch's, it asks cublasLt's heuristic for an algorithm that works with the operands' real
// alignments (an offset view or bias slice is not 256-byte aligned) and a 1 MiB workspace, and
// for 16-bit products allows split sums only in float32 (the COMPUTE_TYPE reduction scheme), so
// the bias path rounds once too; where the heuristic has no algorithm, the unfused path runs. The
// workspace is the handle's own, made once with cudaMalloc, so memory_allocated never counts it.
#include <mutex>

#include "blas_handles.h"
#include "core/cuda_backend.h"
#include "core/dispatch_trace.h"
#include "cublas_library.h"
#include "device_loops.cuh"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {
namespace {

void check(cublasStatus_t status, const char* what) {
  EMBER_CHECK(status == CUBLAS_STATUS_SUCCESS, "CUDA error: cuBLAS ", what, " failed with status ",
              static_cast<int>(status));
}

void check(cudaError_t status, const char* what) {
  EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (", what, ")");
}

// One handle of each kind per device, created on first use (cublasCreate or cublasLtCreate) or
// ahead of it (create_blas_handles).
template <typename Handle>
struct Handles {
  std::mutex mutex;
  Handle of_device[16] = {};
  bool made[16] = {};
};
template <typename Handle>
Handles<Handle>& handles() {
  static Handles<Handle> instance;  // never destroyed before exit: the driver reclaims them
  return instance;
}
template <typename Handle, typename Create>
Handle handle_for(int device, Create create, const char* what) {
  Handles<Handle>& all = handles<Handle>();
  std::lock_guard lock(all.mutex);
  EMBER_CHECK(device >= 0 && device < 16, "Invalid device index ", device);
  if (!all.made[device]) {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(create(&all.of_device[device]), what);
    all.made[device] = true;
  }
  return all.of_device[device];
}
// cublasCreate, then the math mode that keeps split sums in float32 (top of the file).
cublasStatus_t create_blas_handle(cublasHandle_t* handle) {
  const cublasStatus_t status = cublas().cublasCreate(handle);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  return cublas().cublasSetMathMode(*handle, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
}
// cublasLt's handle with its workspace, PyTorch's default size, kept as long as the handle.
constexpr size_t kWorkspaceBytes = 1 << 20;
struct LtHandle {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
};
cublasStatus_t create_lt_handle(LtHandle* lt) {
  const cublasStatus_t status = cublas().cublasLtCreate(&lt->handle);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  if (cudaMalloc(&lt->workspace, kWorkspaceBytes) == cudaSuccess) return CUBLAS_STATUS_SUCCESS;
  cudaGetLastError();  // out of memory is not sticky: clear it, the caller reports it
  cublas().cublasLtDestroy(lt->handle);
  return CUBLAS_STATUS_ALLOC_FAILED;
}
template <typename Handle>
bool handle_exists(int device) {
  Handles<Handle>& all = handles<Handle>();
  std::lock_guard lock(all.mutex);
  return device >= 0 && device < 16 && all.made[device];
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

// The scalars and accumulation of one product: float64 in double, the rest in float32 (TF32 if
// allowed).
struct Precision {
  cublasComputeType_t compute;
  cudaDataType_t scale_type;
  double alpha64, beta64;
  float alpha32, beta32;
  const void* alpha() const { return scale_type == CUDA_R_64F ? static_cast<const void*>(&alpha64) : &alpha32; }
  const void* beta() const { return scale_type == CUDA_R_64F ? static_cast<const void*>(&beta64) : &beta32; }
};

Precision precision_of(DType dtype, double alpha, double beta) {
  const bool double_precision = dtype == kFloat64;
  const cublasComputeType_t compute = double_precision ? CUBLAS_COMPUTE_64F
                                      : dtype == kFloat32 && ::ember::cuda::matmul_allow_tf32()
                                          ? CUBLAS_COMPUTE_32F_FAST_TF32
                                          : CUBLAS_COMPUTE_32F;
  return {compute,
          double_precision ? CUDA_R_64F : CUDA_R_32F,
          alpha,
          beta,
          static_cast<float>(alpha),
          static_cast<float>(beta)};
}

// PyTorch's conditions for the fused bias (Blas.cpp): one matrix, a contiguous [N] bias, every
// dimension above 1 and below cublasLt's grid limit.
bool can_fuse_bias(const Tensor& out, const Tensor& a, const Tensor& bias) {
  const int64_t M = out.size(1), N = out.size(2), K = a.size(2), limit = 65535LL * 32;
  return out.size(0) == 1 && bias.dim() == 1 && bias.numel() == N && bias.stride(0) == 1 && M > 1 && N > 1 && K > 1 &&
         M < limit && N < limit && K < limit;
}

// The largest power of two up to 256 that divides the address: the alignment cublasLt may assume.
uint32_t alignment_of(const void* data) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  uint32_t alignment = 1;
  while (alignment < 256 && address % (2 * alignment) == 0) alignment *= 2;
  return alignment;
}

// out = alpha * a @ b + bias through cublasLt's BIAS epilogue, with the algorithm its heuristic
// picks for these alignments; false if cublasLt declines or has none (then the caller takes the
// unfused path).
bool gemm_with_fused_bias(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, const Tensor& bias) {
  const int device = out.device().index;
  const LtHandle lt = handle_for<LtHandle>(device, create_lt_handle, "cublasLtCreate");
  const cudaDataType_t type = cuda_type(out.dtype());
  const Precision precision = precision_of(out.dtype(), alpha, 0.0);
  const int64_t M = out.size(1), N = out.size(2), K = a.size(2);
  const Operand A = describe(a), B = describe(b);  // cuBLAS's A is b, its B is a (top of the file)
  const bool b_transposed = B.op == CUBLAS_OP_T, a_transposed = A.op == CUBLAS_OP_T;
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  const void* bias_pointer = bias.raw_data();  // the heuristic reads its alignment from it
  const size_t workspace_bytes = kWorkspaceBytes;
  const uint32_t a_alignment = alignment_of(b.raw_data()), b_alignment = alignment_of(a.raw_data()),
                 out_alignment = alignment_of(out.raw_data());
  const uint32_t float32_sums_only = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;  // or no split at all

  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t b_layout = nullptr, a_layout = nullptr, out_layout = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  cublasStatus_t status = cublas().cublasLtMatmulDescCreate(&operation, precision.compute, precision.scale_type);
  auto step = [&](cublasStatus_t next) {
    if (status == CUBLAS_STATUS_SUCCESS) status = next;
  };
  step(cublas().cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA, &B.op, sizeof B.op));
  step(cublas().cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB, &A.op, sizeof A.op));
  step(cublas().cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  step(cublas().cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_pointer,
                                               sizeof bias_pointer));
  // Column-major shapes as cuBLAS stores them: b is [N, K] (or [K, N] transposed), a is [K, M].
  step(cublas().cublasLtMatrixLayoutCreate(&b_layout, type, b_transposed ? K : N, b_transposed ? N : K,
                                           B.leading_dimension));
  step(cublas().cublasLtMatrixLayoutCreate(&a_layout, type, a_transposed ? M : K, a_transposed ? K : M,
                                           A.leading_dimension));
  step(cublas().cublasLtMatrixLayoutCreate(&out_layout, type, N, M, N));
  step(cublas().cublasLtMatmulPreferenceCreate(&preference));
  auto prefer = [&](cublasLtMatmulPreferenceAttributes_t attribute, const auto& value) {
    step(cublas().cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value, sizeof value));
  };
  prefer(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, workspace_bytes);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, a_alignment);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, b_alignment);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, out_alignment);
  prefer(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, out_alignment);
  if (out.dtype() == kBFloat16 || out.dtype() == kFloat16)
    prefer(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, float32_sums_only);
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublas().cublasLtMatmulAlgoGetHeuristic(lt.handle, operation, b_layout, a_layout, out_layout, out_layout,
                                                     preference, 1, &heuristic, &found);
  if (status == CUBLAS_STATUS_SUCCESS && found == 0) status = CUBLAS_STATUS_NOT_SUPPORTED;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublas().cublasLtMatmul(lt.handle, operation, precision.alpha(), b.raw_data(), b_layout, a.raw_data(),
                                     a_layout, precision.beta(), out.raw_data(), out_layout, out.raw_data(), out_layout,
                                     &heuristic.algo, lt.workspace, workspace_bytes, /*stream=*/nullptr);
  if (preference) cublas().cublasLtMatmulPreferenceDestroy(preference);
  if (out_layout) cublas().cublasLtMatrixLayoutDestroy(out_layout);
  if (a_layout) cublas().cublasLtMatrixLayoutDestroy(a_layout);
  if (b_layout) cublas().cublasLtMatrixLayoutDestroy(b_layout);
  if (operation) cublas().cublasLtMatmulDescDestroy(operation);
  if (status == CUBLAS_STATUS_SUCCESS) check_launch("gemm with bias");
  return status == CUBLAS_STATUS_SUCCESS;
}

}  // namespace

void create_blas_handles(int device) {
  handle_for<cublasHandle_t>(device, create_blas_handle, "cublasCreate");
  handle_for<LtHandle>(device, create_lt_handle, "cublasLtCreate");
}

bool blas_handles_created(int device) {
  return handle_exists<cublasHandle_t>(device) && handle_exists<LtHandle>(device);
}

void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  const int64_t batch = out.size(0), M = out.size(1), N = out.size(2), K = a.size(2);
  if (out.numel() == 0) return;
  if (bias.defined()) {  // out = bias (in every row) + alpha * a @ b, as the CPU kernel computes it
    if (can_fuse_bias(out, a, bias) && gemm_with_fused_bias(out, a, b, alpha, bias)) {
      if (trace::enabled()) trace::say("cublasLt matmul ", M, "x", K, "x", N, ", bias in its epilogue");
      return;
    }
    visit_device_dtype(out.dtype(), [&](auto tag) { fill_rows_with<decltype(tag)>(out, bias); });
    beta = 1;
  }
  const cudaDataType_t type = cuda_type(out.dtype());
  const Precision precision = precision_of(out.dtype(), alpha, beta);
  const Operand A = describe(a), B = describe(b);
  check(cublas().cublasGemmStridedBatchedEx(
            handle_for<cublasHandle_t>(out.device().index, create_blas_handle, "cublasCreate"), B.op, A.op,
            static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), precision.alpha(), b.raw_data(), type,
            static_cast<int>(B.leading_dimension), B.batch_stride, a.raw_data(), type,
            static_cast<int>(A.leading_dimension), A.batch_stride, precision.beta(), out.raw_data(), type,
            static_cast<int>(N), M * N, static_cast<int>(batch), precision.compute, CUBLAS_GEMM_DEFAULT),
        "gemm");
  check_launch("gemm");
  if (trace::enabled()) trace::say("cuBLAS gemm ", batch == 1 ? "" : str_cat(batch, " of "), M, "x", K, "x", N);
}

}  // namespace ember::kernels::cuda
