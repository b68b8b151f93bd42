// Layout bookkeeping shared by every TensorImpl.
#include "tensor_impl.h"

#include "autograd/autograd_meta.h"

namespace ember {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Dims sizes_, Dims strides_, int64_t storage_offset_,
                       DType dtype_)
    : storage(std::move(storage_)),
      sizes(sizes_),
      strides(strides_),
      storage_offset(storage_offset_),
      dtype(dtype_) {
  numel = product(sizes);
  // Contiguous = the strides a fresh row-major tensor would have (size-1 dims may have any stride).
  int64_t expected = 1;
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) {
      is_contiguous = false;
      break;
    }
    expected *= sizes[d];
  }
}

TensorImpl::~TensorImpl() = default;

}  // namespace ember
