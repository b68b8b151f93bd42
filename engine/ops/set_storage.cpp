// set_: a tensor, in place, becomes a tensor over another storage, the same object with new bytes.
// It is how PyTorch's serialization and its shared-memory tensors are built, and it shows that a
// tensor is only a layout over a storage: after `a.set_(b)`, a and b read and write the same
// bytes, yet a is no view of b and keeps its own version counter (which set_ bumps). PyTorch gives
// set_ no derivative: a tensor that must record it gets a NotImplemented node, and backward
// through it fails. ATen's set_ and checkSetStorage (TensorShape.cpp), with their texts.
#include "core/size_arithmetic.h"
#include "dispatch.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

struct SetStorage : InPlaceOp {
  static constexpr const char* name = "aten::set_";
  static void compute(const Tensor& self, const StorageHandle& source, int64_t storage_offset, const Dims& sizes,
                      const Dims& strides) {
    TensorImpl& impl = *self.impl();
    if (impl.storage != source.shared()) {
      EMBER_CHECK(impl.device() == source.device(), "Attempted to set the storage of a tensor on device \"",
                  impl.device().str(), "\" to a storage on different device \"", source.device().str(),
                  "\".  This is no longer allowed; the devices must match.");
      impl.storage = source.shared();
    }
    EMBER_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset);
    EMBER_CHECK(strides.empty() || sizes.size() == strides.size(), "unequal size length (", sizes.size(),
                ") and stride length (", strides.size(), ")");
    const Dims layout = strides.empty() ? contiguous_strides(sizes) : strides;
    // ATen's resize_impl_: a layout that reaches past the storage's end grows the storage.
    const int64_t needed = storage_nbytes(sizes, layout, self.element_size(), storage_offset);
    if (needed > impl.storage->nbytes) impl.storage->grow(needed);
    impl.set_layout(sizes, layout, storage_offset);
  }
  static void compute(const Tensor& self, const Tensor& source) {
    if (self.is_same(source)) return;
    compute(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
  }
  static NotImplemented save(const Tensor&, const StorageHandle&, int64_t, const Dims&, const Dims&) {
    return {"set_"};
  }
  static NotImplemented save(const Tensor&, const Tensor&) { return {"set_"}; }
};

}  // namespace

Tensor& Tensor::set_(const StorageHandle& source, int64_t storage_offset, const Dims& sizes, const Dims& strides) {
  call<SetStorage>(*this, source, storage_offset, sizes, strides);
  return *this;
}
Tensor& Tensor::set_(const StorageHandle& source) { return set_(source, 0, {source.nbytes() / element_size()}); }
Tensor& Tensor::set_() { return set_(StorageHandle(make_recycled<Storage>(0, device())), 0, {0}); }
// PyTorch's Python door refuses another dtype (libtorch's would read the bytes as this tensor's).
Tensor& Tensor::set_(const Tensor& source) {
  EMBER_CHECK(source.dtype() == dtype(), "set_: expected a source tensor of dtype ", scalar_type_name(dtype()),
              ", but got ", scalar_type_name(source.dtype()));
  call<SetStorage>(*this, source);
  return *this;
}

}  // namespace ember
