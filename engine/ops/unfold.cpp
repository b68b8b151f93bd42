// unfold(dimension, size, step): every window of `size` elements along `dimension`, `step` apart,
// as a new last dimension, with no copy. Windows overlap when step < size, so the result reads
// some elements more than once (as an expanded view does), and its gradient adds each window's
// share back (UnfoldBackward0) instead of placing it. ATen's unfold (TensorShape.cpp), with its
// checks, texts and its 0-dim rule (a 0-dim tensor is one window of one element).
#include "api/new_tensors.h"
#include "dispatch.h"
#include "view_copies.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

struct Unfold : ViewOp {
  static constexpr const char* name = "aten::unfold";
  static Tensor compute(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
    const int64_t d = wrap_dim(dimension, self.dim());  // a 0-dim tensor takes 0 and -1
    const int64_t ndim = self.dim(), max_size = ndim == 0 ? 1 : self.size(d);
    EMBER_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size, " but size is ", size);
    EMBER_CHECK(step > 0, "step is ", step, " but must be > 0");
    Dims sizes = self.sizes(), strides = self.strides();
    sizes.push_back(size);
    strides.push_back(ndim == 0 ? 1 : self.stride(d));
    if (ndim > 0) {
      sizes[d] = (self.size(d) - size) / step + 1;
      // A step so large that its stride overflows leaves one window, whose stride is never used.
      if (__builtin_mul_overflow(step, self.stride(d), &strides[d])) strides[d] = self.stride(d);
    }
    // A negative size passes the checks above; ATen's as_strided then refuses it with this text.
    EMBER_CHECK(size >= 0, "Storage size calculation overflowed with sizes=", to_string(sizes),
                " and strides=", to_string(strides));
    return internal::view_with_layout(self, sizes, strides, self.storage_offset());
  }
  static UnfoldBackward0 save(const Tensor&, const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
    return {self.sizes(), wrap_dim(dimension, self.dim()), size, step};
  }
};

}  // namespace

Tensor Tensor::unfold(int64_t dimension, int64_t size, int64_t step) const {
  return call<Unfold>(*this, dimension, size, step);
}
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return copy_of_view<Unfold>(self, dimension, size, step);
}

}  // namespace ember
