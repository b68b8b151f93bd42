// libtorch's at::Storage, as `t.storage()` gives it: a handle on the block of bytes a tensor and its
// views share (storage.h's Storage, which it keeps alive). Two handles are the same storage when
// is_alias_of says so; the bytes are data(), nbytes() of them, and a tensor's own elements start
// storage_offset() elements in. `b.set_(a.storage(), offset, sizes, strides)` makes a tensor over them.
#pragma once
#include <memory>

#include "storage.h"

namespace ember {

class StorageHandle {
 public:
  explicit StorageHandle(std::shared_ptr<Storage> storage) : storage_(std::move(storage)) {}

  void* data() const { return storage_->data; }
  int64_t nbytes() const { return storage_->nbytes; }
  Device device() const { return storage_->device; }
  // Whether the bytes can grow (resize_, set_): not when someone else owns them (from_blob).
  bool resizable() const { return !storage_->release; }
  // How many tensors and handles hold the storage (libtorch's use_count).
  long use_count() const { return storage_.use_count(); }
  bool is_alias_of(const StorageHandle& other) const { return storage_ == other.storage_; }
  // libtorch's way to compare storages by address: the Storage itself.
  Storage* unsafeGetStorageImpl() const { return storage_.get(); }
  const std::shared_ptr<Storage>& shared() const { return storage_; }

 private:
  std::shared_ptr<Storage> storage_;
};

}  // namespace ember
