// Layout bookkeeping shared by every TensorImpl.
#include "tensor_impl.h"

#include "autograd/autograd_meta.h"
#include "memory_layout.h"

namespace ember {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Dims sizes_, Dims strides_, int64_t storage_offset_,
                       DType dtype_)
    : storage(std::move(storage_)),
      sizes(sizes_),
      strides(strides_),
      storage_offset(storage_offset_),
      dtype(dtype_) {
  numel = product(sizes);
  is_contiguous = ember::is_contiguous({sizes, strides});
}

TensorImpl::~TensorImpl() = default;

}  // namespace ember
