// CPUID bits (Intel SDM vol. 2, CPUID leaf 1 and leaf 7) behind cpu_capabilities().
#include "cpu_capabilities.h"

#include <cpuid.h>

namespace ember {

namespace {

CpuCapabilities detect() {
  CpuCapabilities caps;
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) caps.f16c = ecx & (1u << 29);
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    caps.avx2 = ebx & (1u << 5);
    caps.avx512f = ebx & (1u << 16);
    caps.avx512_fp16 = edx & (1u << 23);
    caps.amx_bf16 = edx & (1u << 22);
  }
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) caps.avx512_bf16 = eax & (1u << 5);
  return caps;
}

}  // namespace

std::string CpuCapabilities::str() const {
  std::string out;
  auto add = [&](bool has, const char* name) {
    if (!has) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  add(avx2, "avx2");
  add(avx512f, "avx512f");
  add(avx512_bf16, "avx512_bf16");
  add(amx_bf16, "amx_bf16");
  add(avx512_fp16, "avx512_fp16");
  add(f16c, "f16c");
  return out.empty() ? "none of avx2/avx512/bf16/fp16" : out;
}

const CpuCapabilities& cpu_capabilities() {
  static const CpuCapabilities caps = detect();
  return caps;
}

}  // namespace ember
