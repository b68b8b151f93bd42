// Packed weights: a copy of a matmul's weights operand in the layout oneDNN reads fastest, made
// once and reused while the weights are unchanged.
//
// Why: a oneDNN matmul may prefer its weights in a blocked layout of its own (on AVX-512 CPUs its
// brgemm kernels do); handed a plain row- or column-major matrix, it must rearrange them inside
// every product. A Linear layer multiplies by the same weight again and again, so the rearranged
// copy can be kept, as long as something says when the weight has changed. The version counter
// already says it (version_counter.h: every in-place op bumps it, an optimizer step included), so
// a packed copy is kept for one (storage, counter, version, layout) and rebuilt after any change.
//
// The copy hangs off the weight's Storage (storage.h), so it dies with the weight; its bytes come
// from the counting allocator, so memory_allocated counts them as the memory they are. Packing
// starts at the second product that reads the same unchanged weight: a training step changes its
// weights after every use, and a copy made for one use would only cost a pass over the weight.
// (A change made through `.data()` goes to a counter of its own, unseen here as by autograd; only
// in-place ops on the weight or its views bump the counter the packed copy checks.)
//
// Where oneDNN prefers a plain layout (its gemm kernels, the only float32 ones on an AVX2 CPU,
// pack internally and prefer row-major), a copy would at best reorder rows and columns, and on
// such a CPU it made linear's products slower; so by default only blocked layouts are packed.
#pragma once
#include <cstdint>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace ember::kernels::cpu {

enum class WeightPacking {
  Off,                 // never pack
  IntoBlockedLayouts,  // the default: pack when the primitive prefers a blocked layout
  IntoAnyOtherLayout,  // pack whenever the preferred layout differs from the weight's own
};
void set_weight_packing(WeightPacking packing);
WeightPacking weight_packing();

// How many packed copies have been made since the program started (each is one oneDNN reorder).
int64_t weight_packings();

// The weights memory a product by `b` should read: its packed copy when packing applies (see
// above), else `plain`, a memory object over `b` itself as `plain_desc` describes it. `preferred`
// is the layout oneDNN chose for this product (matmul.cpp keeps it with the cached primitive).
// Where packing cannot apply, which on an AVX2 CPU is every product by default, nothing is looked
// up or kept.
struct WeightsMemory {
  dnnl::memory memory;
  bool packed;
  std::shared_ptr<const Storage> packed_bytes;  // held until the product is done
};
WeightsMemory weights_memory(const Tensor& b, const dnnl::memory& plain, const dnnl::memory::desc& plain_desc,
                             const dnnl::memory::desc& preferred, const dnnl::engine& engine, dnnl::stream& stream);

}  // namespace ember::kernels::cpu
