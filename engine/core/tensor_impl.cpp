// Layout bookkeeping shared by every TensorImpl.
#include "tensor_impl.h"

#include "memory_layout.h"

namespace ember {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Dims sizes_, Dims strides_, int64_t storage_offset_,
                       DType dtype_, bool tracks_version)
    : storage(std::move(storage_)),
      version_counter(std::make_shared<VersionCounter>(tracks_version)),
      sizes(sizes_),
      strides(strides_),
      storage_offset(storage_offset_),
      dtype(dtype_) {
  compute_layout();
}

TensorImpl::TensorImpl(const TensorImpl& base, Dims sizes_, Dims strides_, int64_t storage_offset_, DType dtype_)
    : storage(base.storage),
      version_counter(base.version_counter),
      sizes(sizes_),
      strides(strides_),
      storage_offset(storage_offset_),
      dtype(dtype_) {
  compute_layout();
}

void TensorImpl::set_layout(const Dims& new_sizes, const Dims& new_strides, int64_t new_storage_offset) {
  sizes = new_sizes;
  strides = new_strides;
  storage_offset = new_storage_offset;
  compute_layout();
}

void TensorImpl::compute_layout() {
  numel = product(sizes);
  is_contiguous = ember::is_contiguous({sizes, strides});
}

TensorImpl::~TensorImpl() = default;

}  // namespace ember
