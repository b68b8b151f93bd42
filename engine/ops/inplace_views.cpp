// In-place ops that change a tensor's layout, not its values (PyTorch's "inplace view" ops:
// transpose_, t_, squeeze_, unsqueeze_, swapdims_, as_strided_), and in-place math whose formula
// reads the result (exp_, relu_). To autograd they are in-place ops like any other (inplace.h): the
// same checks, a version bump, and the op's node as the tensor's new history; a view they are
// applied to keeps being a view of its base.
#include "api/new_tensors.h"
#include "dispatch.h"
#include "elementwise.h"
#include "profiler/steps.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

// self's layout replaced in place by another view of its storage.
void restride(const Tensor& self, const Tensor& view) {
  self.impl()->set_layout(view.sizes(), view.strides(), view.storage_offset());
}

struct TransposeInPlace : InPlaceOp {
  static constexpr const char* name = "aten::transpose_";
  static void compute(const Tensor& self, int64_t dim0, int64_t dim1) {
    const int64_t d0 = wrap_dim(dim0, self.dim()), d1 = wrap_dim(dim1, self.dim());
    Dims sizes = self.sizes(), strides = self.strides();
    if (self.dim() > 0) {
      std::swap(sizes[d0], sizes[d1]);
      std::swap(strides[d0], strides[d1]);
    }
    self.impl()->set_layout(sizes, strides, self.storage_offset());
  }
  static TransposeBackward1 save(const Tensor& self, int64_t dim0, int64_t dim1) {
    if (self.dim() == 0) return {};
    return {{wrap_dim(dim0, self.dim()), wrap_dim(dim1, self.dim())}};
  }
};
struct TInPlace : InPlaceOp {
  static constexpr const char* name = "aten::t_";
  static void compute(const Tensor& self) {
    EMBER_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
    TransposeInPlace::compute(self, 0, self.dim() < 2 ? 0 : 1);
  }
  static TBackward1 save(const Tensor&) { return {}; }
};
struct SqueezeInPlace : InPlaceOp {
  static constexpr const char* name = "aten::squeeze_";
  static void compute(const Tensor& self) { restride(self, internal::alias(self).squeeze()); }
  static SqueezeBackward2 save(const Tensor& self) { return {{self.sizes()}}; }
};
struct SqueezeDimInPlace : InPlaceOp {
  static constexpr const char* name = "aten::squeeze_";
  static void compute(const Tensor& self, int64_t dim) { restride(self, internal::alias(self).squeeze(dim)); }
  static SqueezeBackward3 save(const Tensor& self, int64_t) { return {{self.sizes()}}; }
};
struct UnsqueezeInPlace : InPlaceOp {
  static constexpr const char* name = "aten::unsqueeze_";
  static void compute(const Tensor& self, int64_t dim) { restride(self, internal::alias(self).unsqueeze(dim)); }
  static UnsqueezeBackward1 save(const Tensor& self, int64_t dim) { return {{wrap_dim(dim, self.dim() + 1)}}; }
};
struct AsStridedInPlace : InPlaceOp {
  static constexpr const char* name = "aten::as_strided_";
  static void compute(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
    restride(self, as_strided(internal::alias(self), sizes, strides, storage_offset));
  }
  static AsStridedBackward1 save(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
    return {{{sizes, strides, storage_offset}, geometry_of(self)}};
  }
};
// swapdims_ and swapaxes_ are transpose_ under other names (ATen's composite ops over it).
struct SwapdimsInPlace : CompositeOp {
  static constexpr const char* name = "aten::swapdims_";
  static void compute(const Tensor& self, int64_t dim0, int64_t dim1) { Tensor(self).transpose_(dim0, dim1); }
};
struct SwapaxesInPlace : CompositeOp {
  static constexpr const char* name = "aten::swapaxes_";
  static void compute(const Tensor& self, int64_t dim0, int64_t dim1) { Tensor(self).transpose_(dim0, dim1); }
};

// ---- in-place math that differentiates through its result ----
struct ExpInPlace : InPlaceOp {
  static constexpr const char* name = "aten::exp_";
  static constexpr bool saves_result = true;
  static void compute(const Tensor& self) {
    elementwise::unary_in_place(kernels::UnaryOp::Exp, self, elementwise::floating_result(self));
  }
  static ExpBackward0 save(const Tensor&) { return {}; }
};
struct ReluInPlace : InPlaceOp {
  static constexpr const char* name = "aten::relu_";
  static constexpr bool saves_result = true;
  static constexpr bool work_in_steps = true;
  static void compute(const Tensor& self) {
    EMBER_CHECK(self.dtype() != kBool, "Boolean inputs not supported for relu");
    profiler::OpEvent<profiler::steps::ClampMinInPlace> clamp_min(self, Scalar(0));
    elementwise::unary_in_place(kernels::UnaryOp::Relu, self, self.dtype());
  }
  static ReluBackward0 save(const Tensor&) { return {}; }
};

}  // namespace

Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) {
  call<TransposeInPlace>(*this, dim0, dim1);
  return *this;
}
Tensor& Tensor::t_() {
  call<TInPlace>(*this);
  return *this;
}
Tensor& Tensor::squeeze_() {
  call<SqueezeInPlace>(*this);
  return *this;
}
Tensor& Tensor::squeeze_(int64_t dim) {
  call<SqueezeDimInPlace>(*this, dim);
  return *this;
}
Tensor& Tensor::unsqueeze_(int64_t dim) {
  call<UnsqueezeInPlace>(*this, dim);
  return *this;
}
Tensor& Tensor::swapdims_(int64_t dim0, int64_t dim1) {
  call<SwapdimsInPlace>(*this, dim0, dim1);
  return *this;
}
Tensor& Tensor::swapaxes_(int64_t dim0, int64_t dim1) {
  call<SwapaxesInPlace>(*this, dim0, dim1);
  return *this;
}
Tensor& Tensor::as_strided_(const Dims& sizes, const Dims& strides, int64_t storage_offset) {
  call<AsStridedInPlace>(*this, sizes, strides, storage_offset);
  return *this;
}
Tensor& Tensor::exp_() {
  call<ExpInPlace>(*this);
  return *this;
}
Tensor& Tensor::relu_() {
  call<ReluInPlace>(*this);
  return *this;
}

}  // namespace ember
