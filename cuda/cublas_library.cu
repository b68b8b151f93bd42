// Loads cuBLAS and cuBLASLt with dlopen at the first product (why: cublas_library.h). The
// libraries are the toolkit's that ember was built with: first by soname, as the system's loader
// finds them, then from the toolkit's own folder.
#include "cublas_library.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>

#include "blas_handles.h"
#include "core/error.h"

namespace ember::kernels::cuda {
namespace {

std::atomic<bool> loaded{false};

void* open_library(const std::string& soname) {
  if (void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_GLOBAL)) return handle;
  const std::string first_error = dlerror();
  if (void* handle = dlopen((std::string(EMBER_CUDA_LIBRARY_DIR) + "/" + soname).c_str(), RTLD_NOW | RTLD_GLOBAL))
    return handle;
  EMBER_CHECK(false, "CUDA error: ember could not load ", soname, " (", first_error, ")");
  return nullptr;
}

CublasLibrary load() {
  const std::string version = std::to_string(EMBER_CUDA_VERSION_MAJOR);
  // cuBLASLt first: libcublas itself depends on it.
  void* lt = open_library("libcublasLt.so." + version);
  void* blas = open_library("libcublas.so." + version);
  CublasLibrary library;
  auto find = [&](const char* name) {
    void* symbol = dlsym(std::string(name).starts_with("cublasLt") ? lt : blas, name);
    EMBER_CHECK(symbol != nullptr, "CUDA error: cuBLAS has no function ", name);
    return symbol;
  };
#define EMBER_STRING(name) #name
#define EMBER_CUBLAS_LOAD(name) library.name = reinterpret_cast<decltype(library.name)>(find(EMBER_STRING(name)));
  EMBER_CUBLAS_FUNCTIONS(EMBER_CUBLAS_LOAD)
#undef EMBER_CUBLAS_LOAD
#undef EMBER_STRING
  library.cublasGemmStridedBatchedEx =
      reinterpret_cast<decltype(library.cublasGemmStridedBatchedEx)>(find("cublasGemmStridedBatchedEx"));
  return library;
}

}  // namespace

const CublasLibrary& cublas() {
  static const CublasLibrary library = [] {
    CublasLibrary made = load();
    loaded = true;
    return made;
  }();
  return library;
}

bool cublas_loaded() { return loaded; }

}  // namespace ember::kernels::cuda
