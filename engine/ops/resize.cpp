// resize_, resize_as_ and the out= variants built on them. `t.resize_(sizes)` gives a tensor new
// sizes in place, growing the storage it shares with its views when needed (resize_as_ takes
// another tensor's sizes). `add_out(out, a, b)` is PyTorch's
// torch.add(a, b, out=out): the result lands in a tensor the caller owns, which is resized to the
// result's shape (with PyTorch's deprecation warning when it was not empty) and must be able to
// hold the result's dtype. An out= call cannot be differentiated, so it is refused while autograd
// would have to record.
#include <cstring>

#include "api/ops.h"
#include "autograd/autograd_meta.h"
#include "core/allocator.h"
#include "core/grad_mode.h"
#include "core/inference_mode.h"
#include "core/memory_overlap.h"
#include "core/size_arithmetic.h"
#include "core/warning.h"
#include "dispatch.h"
#include "elementwise.h"
#include "out_arguments.h"
#include "shape_rules.h"
#include "type_promotion.h"

namespace ember {

void Storage::grow(int64_t new_nbytes) {
  EMBER_CHECK(!release, "Trying to resize storage that is not resizable");
  void* grown = allocate_bytes(device, new_nbytes);
  if (nbytes > 0 && device.is_cpu()) std::memcpy(grown, data, static_cast<size_t>(nbytes));
  else if (nbytes > 0) copy_bytes(device, grown, data, nbytes, cuda::CopyKind::DeviceToDevice);
  free_bytes(device, data, nbytes);
  data = grown;
  nbytes = new_nbytes;
}

namespace {

// at::native::resize_, below autograd. Every size is checked before anything changes (PyTorch sets
// the new sizes first and leaves them set when a check fails; ember's tensor stays as it was).
void resize_below_autograd(TensorImpl& impl, const Dims& new_sizes) {
  if (impl.sizes == new_sizes) return;  // the same sizes keep their strides
  if (autograd::AutogradMeta* meta = impl.autograd_meta.get(); meta && meta->grad_fn && !meta->sizes_when_recorded)
    meta->sizes_when_recorded = std::make_unique<const Dims>(impl.sizes);
  const int64_t count = product(new_sizes);  // "numel: integer multiplication overflow", as PyTorch checks first
  const int64_t needed = storage_nbytes_contiguous(new_sizes, element_size(impl.dtype), impl.storage_offset);
  if (count > 0 && needed > impl.storage->nbytes) impl.storage->grow(needed);
  impl.set_layout(new_sizes, contiguous_strides(new_sizes), impl.storage_offset);
}

// resize_ and resize_as_ are ops to the profiler (aten::resize_as_ > aten::resize_) but not to
// autograd: no node, no version bump. Their requires-grad check is autograd's (VariableType), made
// whether or not grad mode is on, and skipped by inference mode, which skips autograd.
struct Resize : CompositeOp {
  static constexpr const char* name = "aten::resize_";
  static void compute(const Tensor& self, const Dims& new_sizes) {
    EMBER_CHECK(InferenceMode::is_enabled() || !self.requires_grad(), "cannot resize variables that require grad");
    resize_below_autograd(*self.impl(), new_sizes);
  }
};
struct ResizeAs : CompositeOp {
  static constexpr const char* name = "aten::resize_as_";
  static void compute(const Tensor& self, const Tensor& other) {
    EMBER_CHECK(InferenceMode::is_enabled() || !self.requires_grad(), "cannot resize variables that require grad");
    call<Resize>(self, other.sizes());
  }
};

}  // namespace

Tensor& Tensor::resize_(const Dims& new_sizes) {
  call<Resize>(*this, new_sizes);
  return *this;
}
Tensor& Tensor::resize_as_(const Tensor& other) {
  call<ResizeAs>(*this, other);
  return *this;
}
Tensor& resize_as_(Tensor& self, const Tensor& other) { return self.resize_as_(other); }

namespace internal {

void check_no_autograd(const char* op, std::initializer_list<const Tensor*> arguments) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor* t : arguments)
    EMBER_CHECK(!t->requires_grad(), op,
                "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                "arguments requires grad.");
}

void check_out_dtype(const Tensor& out, DType dtype) {
  EMBER_CHECK(out.dtype() == dtype, "Expected out tensor to have dtype ", type_meta_name(dtype), ", but got ",
              type_meta_name(out.dtype()), " instead");
}

// The warning is PyTorch's text without its "(Triggered internally at ...)" source location.
void resize_output(Tensor& out, const Dims& shape) {
  if (out.sizes() == shape) return;
  if (out.numel() != 0)
    warn(str_cat("An output with one or more elements was resized since it had shape ", to_string(out.sizes()),
                 ", which does not match the required output shape ", to_string(shape),
                 ". This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless "
                 "they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                 "elements with t.resize_(0)."));
  resize_below_autograd(*out.impl(), shape);
}

}  // namespace internal

namespace {

using internal::check_no_autograd;
using internal::resize_output;

// TensorIterator's steps before it computes: the memory checks of out against the inputs, then
// the broadcast shape (a shape whose element count overflows gets resize_'s text, "numel: integer
// multiplication overflow", not an allocation's), which an out that is also an input, read and
// written, must already have.
void check_elementwise_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  internal::check_no_internal_overlap(out);
  internal::check_no_partial_overlap(out, a);
  internal::check_no_partial_overlap(out, b);
  const Dims shape = broadcast_shapes(a.sizes(), b.sizes());
  product(shape);
  const bool read_and_written = out.impl() == a.impl() || out.impl() == b.impl();
  EMBER_CHECK(!read_and_written || out.sizes() == shape, "output with shape ", to_string(out.sizes()),
              " doesn't match the broadcast shape ", to_string(shape));
}

// Element-wise ops write any result their dtype rules allow into out, converting it. An out that
// must be resized is then laid out as a new result would be (TensorIterator's as_strided_ of a
// resized output): a permuted input gives a permuted out.
Tensor& write_elementwise(Tensor& out, const Tensor& result) {
  internal::check_can_cast(result.dtype(), out.dtype());
  if (out.sizes() != result.sizes()) {
    resize_output(out, result.sizes());
    out.impl()->set_layout(result.sizes(), result.strides(), out.storage_offset());
  }
  return out.copy_(result);
}

}  // namespace

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  check_no_autograd("add", {&a, &b, &out});
  check_elementwise_out(out, a, b);
  return write_elementwise(out, add(a, b, alpha));
}

Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha) {
  check_no_autograd("sub", {&a, &b, &out});
  elementwise::check_bool_subtraction(kernels::BinaryOp::Sub, a.dtype(), b.dtype());  // sub's own check comes first
  check_elementwise_out(out, a, b);
  return write_elementwise(out, sub(a, b, alpha));
}

Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  check_no_autograd("mul", {&a, &b, &out});
  check_elementwise_out(out, a, b);
  return write_elementwise(out, mul(a, b));
}

Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b) {
  check_no_autograd("div", {&a, &b, &out});
  check_elementwise_out(out, a, b);
  return write_elementwise(out, div(a, b));
}

}  // namespace ember
