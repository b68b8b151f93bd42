// Packed weights (see packed_weights.h for why): the copy kept on the weight's storage, the check
// that it is still the weight's current value, and the oneDNN reorder that makes it.
#include "packed_weights.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "core/storage.h"
#include "core/tensor_impl.h"
#include "room_for_onednn.h"

namespace ember::kernels::cpu {

// What a storage's slot holds: which reading of the bytes it is for, and the packed copy once one
// is made. A first use leaves an entry without a copy, so that the second use can tell it is one.
struct PackedWeight {
  std::weak_ptr<VersionCounter> counter;  // the counter in-place changes of the weight bump
  uint32_t version = 0;
  std::vector<int64_t> layout;  // dtype, storage offset, sizes and strides of the operand as read
  std::shared_ptr<Storage> bytes;
  dnnl::memory::desc desc;
};

namespace {

std::atomic<WeightPacking> packing_policy{WeightPacking::IntoBlockedLayouts};
std::atomic<int64_t> packings{0};
std::mutex slots_mutex;  // guards every storage's kernel_cache slot

std::vector<int64_t> layout_of(const Tensor& t) {
  std::vector<int64_t> layout{static_cast<int64_t>(t.dtype()), t.storage_offset()};
  for (int64_t d = 0; d < t.dim(); ++d) layout.insert(layout.end(), {t.size(d), t.stride(d)});
  return layout;
}

bool describes(const PackedWeight& entry, const std::shared_ptr<VersionCounter>& counter, uint32_t version,
               const std::vector<int64_t>& layout) {
  return entry.counter.lock() == counter && entry.version == version && entry.layout == layout;
}

bool packing_applies(WeightPacking policy, const dnnl::memory::desc& preferred, const dnnl::memory::desc& plain) {
  if (policy == WeightPacking::Off || preferred == plain) return false;
  if (policy == WeightPacking::IntoAnyOtherLayout) return true;
  return preferred.data.format_kind == dnnl_blocked && preferred.data.format_desc.blocking.inner_nblks > 0;
}

}  // namespace

void set_weight_packing(WeightPacking packing) { packing_policy = packing; }
WeightPacking weight_packing() { return packing_policy; }
int64_t weight_packings() { return packings; }

WeightsMemory weights_memory(const Tensor& b, const dnnl::memory& plain, const dnnl::memory::desc& plain_desc,
                             const dnnl::memory::desc& preferred, const dnnl::engine& engine, dnnl::stream& stream) {
  WeightsMemory unpacked{plain, false, nullptr};
  if (!packing_applies(weight_packing(), preferred, plain_desc)) return unpacked;
  if (b.is_inference()) return unpacked;  // no counter, nothing to key on
  const TensorImpl& impl = *b.impl();
  const uint32_t version = impl.version_counter->current();
  std::vector<int64_t> layout = layout_of(b);

  std::lock_guard<std::mutex> lock(slots_mutex);
  std::shared_ptr<void>& stored = impl.storage->kernel_cache;  // only this file stores a PackedWeight there
  std::shared_ptr<PackedWeight> slot = std::static_pointer_cast<PackedWeight>(stored);
  if (!slot || !describes(*slot, impl.version_counter, version, layout)) {  // a first use, or a changed weight
    slot = std::make_shared<PackedWeight>();
    slot->counter = impl.version_counter;
    slot->version = version;
    slot->layout = std::move(layout);
    stored = slot;
    return unpacked;
  }
  PackedWeight& entry = *slot;
  if (!entry.bytes || entry.desc != preferred) {  // the second use (or a layout chosen since): pack
    check_room_for_onednn();                      // before the entry changes: it may throw
    entry.bytes = make_recycled<Storage>(static_cast<int64_t>(preferred.get_size()), kCPU);
    entry.desc = preferred;
    dnnl::memory packed(preferred, engine, entry.bytes->data);
    dnnl::reorder(unpacked.memory, packed).execute(stream, unpacked.memory, packed);
    stream.wait();
    ++packings;
  }
  return {dnnl::memory(entry.desc, engine, entry.bytes->data), true, entry.bytes};
}

}  // namespace ember::kernels::cpu
