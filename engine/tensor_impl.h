// TensorImpl: what a tensor *is*. A storage plus the layout that says which of its elements this
// tensor sees: sizes, strides (in elements) and a storage offset. Views are new TensorImpls over
// the same storage with another layout; nothing is copied. Autograd data is attached only to
// tensors that take part in autograd (see autograd/autograd_meta.h).
#pragma once
#include <memory>

#include "dims.h"
#include "dtype.h"
#include "storage.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
}

struct TensorImpl {
  TensorImpl(std::shared_ptr<Storage> storage, Dims sizes, Dims strides, int64_t storage_offset, DType dtype);
  ~TensorImpl();

  std::shared_ptr<Storage> storage;
  Dims sizes;
  Dims strides;
  int64_t storage_offset = 0;
  DType dtype;
  int64_t numel = 1;
  bool is_contiguous = true;  // row-major with no gaps (computed once, layouts never change)
  std::unique_ptr<autograd::AutogradMeta> autograd_meta;

  Device device() const { return storage->device; }
  bool is_inference() const { return !storage->version_counter.enabled(); }
  // Address of element 0 of this view.
  char* data() const { return static_cast<char*>(storage->data) + storage_offset * element_size(dtype); }
};

}  // namespace ember
