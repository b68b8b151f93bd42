// Layout bookkeeping shared by every TensorImpl.
#include "tensor_impl.h"

#include "memory_layout.h"

namespace ember {

namespace {
// Inference tensors keep no count, so they need no counter of their own: they all share this one,
// which never counts, and making one allocates nothing for it (part of why inference_mode is
// cheaper than no_grad; PyTorch's inference tensors have no VariableVersion either). It is held
// through a shared_ptr that owns nothing (the aliasing constructor, over a static counter), so
// making and freeing an inference tensor does not touch a reference count either.
const std::shared_ptr<VersionCounter>& no_version_counter() {
  static VersionCounter disabled(false);
  static const std::shared_ptr<VersionCounter> unowned(std::shared_ptr<VersionCounter>(), &disabled);
  return unowned;
}
}  // namespace

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Dims sizes_, Dims strides_, int64_t storage_offset_,
                       DType dtype_, bool tracks_version)
    : storage(std::move(storage_)),
      version_counter(tracks_version ? make_recycled<VersionCounter>(true) : no_version_counter()),
      sizes(std::move(sizes_)),
      strides(std::move(strides_)),
      storage_offset(storage_offset_),
      dtype(dtype_) {
  compute_layout();
}

TensorImpl::TensorImpl(const TensorImpl& base, Dims sizes_, Dims strides_, int64_t storage_offset_, DType dtype_)
    : storage(base.storage),
      version_counter(base.version_counter),
      sizes(std::move(sizes_)),
      strides(std::move(strides_)),
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
