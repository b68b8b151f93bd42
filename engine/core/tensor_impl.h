// TensorImpl: what a tensor *is*. A storage plus the layout that says which of its elements this
// tensor sees: sizes, strides (in elements) and a storage offset. Views are new TensorImpls over
// the same storage with another layout, sharing the version counter; nothing is copied. Autograd
// data is attached only to tensors that take part in autograd (see autograd/autograd_meta.h).
#pragma once
#include <memory>

#include "dims.h"
#include "dtype.h"
#include "python_object_slot.h"
#include "recycled_blocks.h"  // TensorImpls and Storages are made with make_recycled
#include "storage.h"
#include "version_counter.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
// Frees an AutogradMeta (autograd/autograd_meta.cpp): the core holds autograd's per-tensor data
// without knowing what it holds, as c10's TensorImpl holds an AutogradMetaInterface.
struct AutogradMetaDeleter {
  void operator()(AutogradMeta* meta) const;
};
}  // namespace autograd

struct TensorImpl {
  // A tensor over `storage` with a version counter of its own (a disabled one for an inference tensor).
  TensorImpl(std::shared_ptr<Storage> storage, Dims sizes, Dims strides, int64_t storage_offset, DType dtype,
             bool tracks_version);
  // Another layout over `base`'s storage that shares its version counter: a view, or an alias.
  TensorImpl(const TensorImpl& base, Dims sizes, Dims strides, int64_t storage_offset, DType dtype);
  ~TensorImpl();

  std::shared_ptr<Storage> storage;
  std::shared_ptr<VersionCounter> version_counter;
  Dims sizes;
  Dims strides;
  int64_t storage_offset = 0;
  DType dtype;
  int64_t numel = 1;
  bool is_contiguous = true;  // row-major with no gaps (computed whenever the layout is set)
  std::unique_ptr<autograd::AutogradMeta, autograd::AutogradMetaDeleter> autograd_meta;
  PythonObjectSlot python_object;  // its one Python object, when Python has seen it

  Device device() const { return storage->device; }
  bool is_inference() const { return !version_counter->enabled(); }
  // Address of element 0 of this view. A tensor without elements may have any offset (as_strided
  // allows it, and its slices move it), which points nowhere: its address is its storage's.
  char* data() const {
    char* bytes = static_cast<char*>(storage->data);
    return numel == 0 ? bytes : bytes + storage_offset * element_size(dtype);
  }
  // A new layout over the same storage (set_data and resize_).
  void set_layout(const Dims& new_sizes, const Dims& new_strides, int64_t new_storage_offset);

 private:
  void compute_layout();  // numel and is_contiguous, from sizes and strides
};

}  // namespace ember
