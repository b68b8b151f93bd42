// The kernel table: for each device, which function computes each kernel. An op asks
// `kernels::on(out.device()).gemm(...)` and gets the CPU function from kernels/, the CUDA one
// from cuda/, or the checking device's (checking_kernels.cpp); this is the only place ops choose
// a device (candle's one `match` on the device).
// A device without an entry yet raises "'gemm' has no CUDA kernel yet" from here.
//
// Kernels compute; they never call back into the op layer. Their inputs arrive prepared by the op
// (broadcast, converted to the compute dtype, laid out as kernel_list.h says).
// The samplers in distributions.h are not in the table: they draw from the CPU generator, and a
// CUDA tensor is filled on the host and copied over (ops/random.cpp).
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/dispatch_trace.h"
#include "kernel_list.h"

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
    if (trace::enabled()) [[unlikely]]
      return traced(args...);
    return fn_(args...);
  }

 private:
  // "kernel: CPU gemm" in the dispatch trace, the kernel's own lines under it; out of line, so that
  // the untraced call stays small enough to inline.
  [[gnu::noinline]] Result traced(Args... args) const {
    trace::say("kernel: ", device_name_, " ", name_);
    trace::Indent inside;
    return fn_(args...);
  }

  const char* name_;
  const char* device_name_;
  Result (*fn_)(Args...) = nullptr;
};

// One slot per line of kernel_list.h, filled by each device in one screen (kernels/backend.cpp,
// cuda/kernel_table.cu).
struct KernelTable {
  explicit KernelTable(const char* device_name) : device_name(device_name) {}
  const char* device_name;
#define EMBER_KERNEL_SLOT(name, result, parameters) Kernel<result parameters> name{#name, device_name};
  EMBER_KERNELS(EMBER_KERNEL_SLOT)
#undef EMBER_KERNEL_SLOT
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
// Fills the checking device's table: the CPU's kernels behind its checks (checking_kernels.cpp).
void register_checking_kernels(KernelTable& table);

// The table of `device`'s type (kernels/backend.cpp).
const KernelTable& on(Device device);

}  // namespace ember::kernels
