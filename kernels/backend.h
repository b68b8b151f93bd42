// The kernel table: for each device, which function computes each kernel. An op asks
// `kernels::on(out.device()).gemm(...)` and gets the CPU function from kernels/ or the CUDA one
// from cuda/; this is the only place ops choose a device (candle's one `match` on the device).
// A device without an entry yet raises "'gemm' has no CUDA kernel yet" from here.
//
// Kernels compute; they never call back into the op layer. Their inputs arrive prepared by the op
// (broadcast, converted to the compute dtype, laid out as the kernel's header says).
// The samplers in distributions.h are not in the table: they draw from the CPU generator, and a
// CUDA tensor is filled on the host and copied over (engine/random.cpp).
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/tensor.h"
#include "elementwise.h"
#include "reduce.h"

namespace ember::kernels {

[[noreturn]] void missing_kernel(const char* name, const char* device_name);

// One entry of a table: a function pointer that is null when the device has no such kernel.
template <typename Signature>
class Kernel;
template <typename Result, typename... Args>
class Kernel<Result(Args...)> {
 public:
  Kernel(const char* name, const char* device_name) : name_(name), device_name_(device_name) {}
  Kernel& operator=(Result (*fn)(Args...)) {
    fn_ = fn;
    return *this;
  }
  bool available() const { return fn_ != nullptr; }
  Result operator()(Args... args) const {
    if (!fn_) [[unlikely]]
      missing_kernel(name_, device_name_);
    return fn_(args...);
  }

 private:
  const char* name_;
  const char* device_name_;
  Result (*fn_)(Args...) = nullptr;
};

struct KernelTable {
  explicit KernelTable(const char* device_name) : device_name(device_name) {}
  const char* device_name;
#define EMBER_KERNEL(name, signature) \
  Kernel<signature> name { #name, device_name }
  // ---- element-wise (elementwise.h): out already has the broadcast shape ----
  EMBER_KERNEL(binary, void(BinaryOp, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha));
  EMBER_KERNEL(compare, void(CompareOp, const Tensor& out, const Tensor& a, const Tensor& b));
  EMBER_KERNEL(unary, void(UnaryOp, const Tensor& out, const Tensor& in, double exponent));
  EMBER_KERNEL(where, void(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b));
  // relu's gradient in one pass.
  EMBER_KERNEL(threshold_backward, void(const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold));
  // ---- copies (copy.h) ----
  EMBER_KERNEL(copy, void(const Tensor& dst, const Tensor& src));
  EMBER_KERNEL(fill, void(const Tensor& dst, Scalar value));
  // ---- rows of a contiguous [outer, inner] matrix (reduce.h, softmax.h, layer_norm.h, loss.h) ----
  EMBER_KERNEL(reduce_rows, void(ReduceOp, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values,
                                 const Tensor& indices));
  EMBER_KERNEL(sum_columns, void(const Tensor& in, int64_t rows, int64_t columns, const Tensor& sums));
  EMBER_KERNEL(scatter_rows, void(const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer,
                                  int64_t size, int64_t inner));
  EMBER_KERNEL(softmax_rows, void(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log));
  EMBER_KERNEL(layer_norm_rows, void(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                                     const Tensor& weight, const Tensor& bias, int64_t rows, int64_t n, double eps));
  EMBER_KERNEL(nll_loss_forward,
               int64_t(const Tensor& losses, const Tensor& log_probs, const Tensor& target, int64_t ignore_index));
  EMBER_KERNEL(nll_loss_backward, void(const Tensor& grad_input, const Tensor& grad_output, const Tensor& target,
                                       int64_t ignore_index, double scale, bool per_sample));
  // ---- matrix products (matmul.h) ----
  EMBER_KERNEL(gemm, void(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta,
                          const Tensor& bias));
#undef EMBER_KERNEL
};

// The operand layout every gemm kernel reads directly: a unit stride in one of the two inner dims
// (a transposed weight is just other strides, so linear's weight.t() costs no copy) and no
// broadcast batch (stride 0). The op copies an operand that is not laid out so.
inline bool has_gemm_layout(const Tensor& t) {
  const bool row_major = t.stride(2) == 1 && t.stride(1) >= std::max<int64_t>(t.size(2), 1);
  const bool col_major = t.stride(1) == 1 && t.stride(2) >= std::max<int64_t>(t.size(1), 1);
  return (row_major || col_major) && (t.size(0) == 1 || t.stride(0) > 0);
}

// Fills the CUDA table with cuda/'s kernels (cuda/kernel_table.cu; a build without CUDA leaves it
// empty, cuda/no_cuda.cpp).
void register_cuda_kernels(KernelTable& table);

// The table of `device`'s type (kernels/backend.cpp).
const KernelTable& on(Device device);

}  // namespace ember::kernels
