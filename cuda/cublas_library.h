// cuBLAS and cuBLASLt, loaded by the first product on a GPU rather than when the program starts.
// Linked the usual way, the two libraries (hundreds of megabytes) cost every program that links a
// CUDA-built ember about 70 ms at start-up, GPU or not; loaded with dlopen on first use they cost
// nothing until a product runs. PyTorch loads NVRTC the same way (ATen's LazyNVRTC).
// Each function keeps its cuBLAS name: `cublas().cublasLtMatmul(...)`.
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>

namespace ember::kernels::cuda {

// Every cuBLAS function ember calls. cublas_v2.h makes some names macros (cublasCreate is
// cublasCreate_v2): the list expands them, so each member and its symbol name are the real ones.
// clang-format off
#define EMBER_CUBLAS_FUNCTIONS(X)         \
  X(cublasCreate)                         \
  X(cublasSetMathMode)                    \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmul)                       \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)
// clang-format on

struct CublasLibrary {
#define EMBER_CUBLAS_MEMBER(name) decltype(&::name) name = nullptr;
  EMBER_CUBLAS_FUNCTIONS(EMBER_CUBLAS_MEMBER)
#undef EMBER_CUBLAS_MEMBER
  // For C++, cublas_api.h overloads this one with an inline wrapper that takes the older
  // cudaDataType compute type; the library's own function takes cublasComputeType_t.
  cublasStatus_t (*cublasGemmStridedBatchedEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                               const void*, const void*, cudaDataType, int, long long, const void*,
                                               cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                               long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

// The functions, loaded on the first call; raises ember's error naming the library when it
// cannot be loaded.
const CublasLibrary& cublas();

}  // namespace ember::kernels::cuda
