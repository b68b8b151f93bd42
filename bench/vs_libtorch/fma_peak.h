// The floor under the table: one core's peak rate of float32 fused multiply-adds. A matrix product
// cannot run faster than its FLOPs at this rate, whoever's gemm runs it, so a workload that is
// nearly all products has a least time no library can beat. Reading a ratio against that floor
// says whether a gap is overhead (which can go) or arithmetic (which cannot): if libtorch already
// runs at 85% of the peak, no engine is 0.8x libtorch there.
#pragma once

namespace vs_libtorch {

struct FmaPeak {
  double flops_per_second = 0;  // 0 where the CPU has no AVX2 FMA (the floor is then not printed)
  const char* width = "";       // the FMAs measured: the widest the CPU has
};

// FLOP/s of one thread, measured (about 0.1 s) with the widest FMA the CPU has.
FmaPeak fma_peak_one_thread();

}  // namespace vs_libtorch
