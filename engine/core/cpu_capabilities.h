// What this CPU can do for low precision, read from CPUID. The chapter warns that bf16 autocast
// can be *slower* than float32 on a CPU without bf16 instructions (the casts cost more than the
// narrower matmul saves); a demo asks here before promising a speed-up.
#pragma once
#include <string>

namespace ember {

struct CpuCapabilities {
  bool avx2 = false;
  bool avx512f = false;
  bool avx512_bf16 = false;  // bf16 dot products in AVX-512 (Cooper Lake, Zen 4, Sapphire Rapids)
  bool amx_bf16 = false;     // bf16 tile matrix multiply (Sapphire Rapids and later)
  bool avx512_fp16 = false;  // native float16 arithmetic
  bool f16c = false;         // float16 <-> float32 conversion

  // Whether bf16 matmuls should beat float32 here: the hardware multiplies bf16 natively.
  bool bf16_faster_than_fp32() const { return avx512_bf16 || amx_bf16; }
  std::string str() const;  // "avx2 avx512f avx512_bf16 f16c"
};

const CpuCapabilities& cpu_capabilities();

}  // namespace ember
