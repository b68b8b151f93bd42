// Tensor.view(dtype): self's bytes read as another dtype (t.view(torch.int32)), the same storage
// and version counter, the last dimension rescaled when the element sizes differ (a float32 row of
// 4 is a uint8 row of 16). As in PyTorch, no gradient flows through it and autograd does not count
// it as a view (`_is_view()` is false): derivatives.yaml marks it not differentiable.
#include <string>

#include "dispatch.h"

namespace ember {

namespace {

struct ViewDtype : FunctionalOp {
  static constexpr const char* name = "aten::view";
  static Tensor compute(const Tensor& self, DType dtype) {
    const int64_t old_size = self.element_size(), new_size = element_size(dtype);
    Dims sizes = self.sizes(), strides = self.strides();
    int64_t offset = self.storage_offset();
    if (old_size != new_size) {
      const std::string what = str_cat(" to view ", scalar_type_name(self.dtype()), " as ", scalar_type_name(dtype),
                                       " (different element sizes)");
      EMBER_CHECK(self.dim() > 0, "self.dim() cannot be 0", what);
      const int64_t last = self.dim() - 1;
      EMBER_CHECK(self.stride(last) == 1, "self.stride(-1) must be 1", what, ", but got ", self.stride(last));
      if (old_size > new_size) {  // each element becomes `ratio` smaller ones
        const int64_t ratio = old_size / new_size;
        for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
        sizes[last] *= ratio;
        offset *= ratio;
      } else {  // `ratio` elements become one
        const int64_t ratio = new_size / old_size;
        EMBER_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio, what, ", but got ",
                    sizes[last]);
        EMBER_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, what, ", but got ",
                    offset);
        for (int64_t d = 0; d < last; ++d) {
          EMBER_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, what, ", but got ",
                      strides[d]);
          strides[d] /= ratio;
        }
        sizes[last] /= ratio;
        offset /= ratio;
      }
    }
    return Tensor(make_recycled<TensorImpl>(*self.impl(), sizes, strides, offset, dtype));
  }
};

// torch.view_copy(x, dtype): the reinterpreted bytes in storage of their own, no gradient either.
struct ViewDtypeCopy : FunctionalOp {
  static constexpr const char* name = "aten::view_copy";
  static Tensor compute(const Tensor& self, DType dtype) { return call<ViewDtype>(self, dtype).clone(); }
};

}  // namespace

Tensor Tensor::view_dtype(DType dtype) const { return call<ViewDtype>(*this, dtype); }
Tensor view_copy(const Tensor& self, DType dtype) { return call<ViewDtypeCopy>(self, dtype); }

}  // namespace ember
