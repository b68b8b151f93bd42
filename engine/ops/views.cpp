// View ops: new sizes/strides/offset over the same storage (so the same version counter), no
// copy. The dispatcher records each one's node, whose formula maps the view's gradient back onto
// its input (derivatives.h), and remembers the view's base for the in-place rules (inplace.h).
#include <algorithm>

#include "api/new_tensors.h"
#include "core/size_arithmetic.h"
#include "dispatch.h"
#include "profiler/steps.h"
#include "shape_rules.h"
#include "view_copies.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

// A tensor sharing self's storage and version counter, with another layout.
constexpr auto alias_with = internal::alias_with_layout;

// The same, recorded as the aten::as_strided step that ATen's view ops (all but view and
// _reshape_alias) take to make their result, so a profile nests it in the view op as PyTorch's does.
constexpr auto strided_view = internal::view_with_layout;

// self's storage offset moved `index` steps of `stride`. Within a tensor that has elements this is
// an element's offset, which fits; an empty tensor's strides can be anything as_strided accepted,
// and an offset past int64 (which ATen wraps around) is refused instead.
int64_t offset_by(const Tensor& self, int64_t index, int64_t stride) {
  int64_t moved = 0, offset = 0;
  EMBER_CHECK(
      !__builtin_mul_overflow(index, stride, &moved) && !__builtin_add_overflow(self.storage_offset(), moved, &offset),
      "Storage size calculation overflowed with sizes=", to_string(self.sizes()),
      " and strides=", to_string(self.strides()));
  return offset;
}

struct AsStrided : ViewOp {  // no derivative: ember's named views record their own nodes
  static constexpr const char* name = "aten::as_strided";
  // ATen's setStrided and checkInBoundsForStorage, in their order, with their texts; ATen adds
  // the offset's bytes unchecked (a huge offset wraps around and passes: PyTorch 1.13 then reads
  // out of bounds), where ember refuses with the overflow text.
  static Tensor compute(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
    EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
    for (int64_t stride : strides)
      EMBER_CHECK(stride >= 0,
                  "as_strided: Negative strides are not supported at the moment, got strides: ", to_string(strides));
    const int64_t element_size = self.element_size(), available = self.impl()->storage->nbytes;
    const int64_t span = storage_nbytes(sizes, strides, element_size);  // 0 when empty: then any offset fits
    int64_t offset_bytes = 0, required = 0;
    EMBER_CHECK(span == 0 || (!__builtin_mul_overflow(storage_offset, element_size, &offset_bytes) &&
                              !__builtin_add_overflow(span, offset_bytes, &required)),
                "Storage size calculation overflowed with sizes=", to_string(sizes),
                " and strides=", to_string(strides));
    EMBER_CHECK(span == 0 || required <= available, "setStorage: sizes ", to_string(sizes), ", strides ",
                to_string(strides), ", storage offset ", storage_offset, ", and itemsize ", element_size,
                " requiring a storage size of ", required, " are out of bounds for storage of size ", available);
    EMBER_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset);
    return alias_with(self, sizes, strides, storage_offset);
  }
};
struct AsStridedRecorded : AsStrided {
  static AsStridedBackward0 save(const Tensor&, const Tensor& self, const Dims& sizes, const Dims& strides,
                                 int64_t storage_offset) {
    return {{sizes, strides, storage_offset}, autograd::geometry_of(self)};
  }
};
struct Alias : ViewOp {  // the same layout: what alias_copy copies (ember has no alias of its own)
  static constexpr const char* name = "aten::alias";
  using CopyNode = CopyBackward<AliasBackward0>;
  static Tensor compute(const Tensor& self) { return internal::alias(self); }
};

struct View : ViewOp {
  static constexpr const char* name = "aten::view";
  static Tensor compute(const Tensor& self, const Dims& shape) {
    Dims new_sizes = infer_size(shape, self.numel());
    auto new_strides = view_strides(self.sizes(), self.strides(), new_sizes);
    EMBER_CHECK(new_strides.has_value(),
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead.");
    return alias_with(self, new_sizes, *new_strides, self.storage_offset());
  }
  static ViewBackward0 save(const Tensor&, const Tensor& self, const Dims&) { return {self.sizes()}; }
};
struct ReshapeAlias : ViewOp {  // reshape when the strides allow a view
  static constexpr const char* name = "aten::_reshape_alias";
  static Tensor compute(const Tensor& self, const Dims& new_sizes, const Dims& new_strides) {
    return alias_with(self, new_sizes, new_strides, self.storage_offset());
  }
  static ReshapeAliasBackward0 save(const Tensor&, const Tensor& self, const Dims&, const Dims&) {
    return {{self.sizes()}};
  }
};
// What reshape-with-copy and matmul's folding return: it aliases its (fresh) input, but autograd
// does not treat it as a view (PyTorch's _unsafe_view: `_is_view()` is false).
struct UnsafeView : FunctionalOp {
  static constexpr const char* name = "aten::_unsafe_view";
  static Tensor compute(const Tensor& self, const Dims& shape) {
    Dims new_sizes = infer_size(shape, self.numel());
    auto new_strides = view_strides(self.sizes(), self.strides(), new_sizes);
    EMBER_INTERNAL_ASSERT(new_strides.has_value(), "unsafe_view needs a viewable tensor");
    return alias_with(self, new_sizes, *new_strides, self.storage_offset());
  }
  static UnsafeViewBackward0 save(const Tensor&, const Tensor& self, const Dims&) { return {{self.sizes()}}; }
};

struct Select : ViewOp {
  static constexpr const char* name = "aten::select";
  static Tensor compute(const Tensor& self, int64_t dim, int64_t index) {
    EMBER_CHECK(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
    const int64_t d = wrap_dim(dim, self.dim());
    const int64_t size = self.sizes()[d];
    if (index < -size || index >= size) [[unlikely]]  // an IndexError, as ATen's TORCH_CHECK_INDEX
      throw IndexError(str_cat("select(): index ", index, " out of range for tensor of size ", to_string(self.sizes()),
                               " at dimension ", d));
    if (index < 0) index += size;
    Dims new_sizes = self.sizes(), new_strides = self.strides();
    new_sizes.erase(d);
    new_strides.erase(d);
    return strided_view(self, new_sizes, new_strides, offset_by(self, index, self.stride(d)));
  }
  static SelectBackward0 save(const Tensor&, const Tensor& self, int64_t dim, int64_t index) {
    const int64_t d = wrap_dim(dim, self.dim());
    return {self.sizes(), d, index < 0 ? index + self.size(d) : index};
  }
};

// Python slicing rules: negative bounds count from the end, out-of-range bounds are clamped.
struct SliceBounds {
  int64_t dim, start, end;
};
SliceBounds slice_bounds(const Tensor& self, int64_t dim, int64_t start, int64_t end) {
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t size = self.sizes()[d];
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  return {d, start, std::clamp<int64_t>(end, start, size)};
}
struct Slice : ViewOp {
  static constexpr const char* name = "aten::slice";
  static Tensor compute(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
    EMBER_CHECK(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
    const SliceBounds b = slice_bounds(self, dim, start, end);  // the dim is checked first, as in ATen
    EMBER_CHECK(step > 0, "slice step must be positive");
    Dims new_sizes = self.sizes(), new_strides = self.strides();
    const int64_t length = b.end - b.start;
    new_sizes[b.dim] = length == 0 ? 0 : (length - 1) / step + 1;  // rounded up, without overflow for a huge step
    // A step so large that the stride overflows leaves one element, whose stride is never used: the
    // stride stays unscaled (ATen's wraps around and its as_strided then refuses the negative stride).
    if (__builtin_mul_overflow(self.stride(b.dim), step, &new_strides[b.dim])) new_strides[b.dim] = self.stride(b.dim);
    return strided_view(self, new_sizes, new_strides, offset_by(self, b.start, self.stride(b.dim)));
  }
  static SliceBackward0 save(const Tensor&, const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
    const SliceBounds b = slice_bounds(self, dim, start, end);
    return {self.sizes(), b.dim, b.start, b.end, step};
  }
};

struct Transpose : ViewOp {
  static constexpr const char* name = "aten::transpose";
  static Tensor compute(const Tensor& self, int64_t dim0, int64_t dim1) {
    const int64_t d0 = wrap_dim(dim0, self.dim()), d1 = wrap_dim(dim1, self.dim());
    if (self.dim() == 0) return alias_with(self, self.sizes(), self.strides(), self.storage_offset());
    Dims new_sizes = self.sizes(), new_strides = self.strides();
    std::swap(new_sizes[d0], new_sizes[d1]);
    std::swap(new_strides[d0], new_strides[d1]);
    return strided_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static TransposeBackward0 save(const Tensor&, const Tensor& self, int64_t dim0, int64_t dim1) {
    if (self.dim() == 0) return {};
    return {wrap_dim(dim0, self.dim()), wrap_dim(dim1, self.dim())};
  }
};
struct MatrixTranspose : ViewOp {  // transpose(0, 1) as in ATen, so a profile shows aten::transpose inside
  static constexpr const char* name = "aten::t";
  static Tensor compute(const Tensor& self) {
    EMBER_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
    return self.transpose(0, self.dim() < 2 ? 0 : 1);
  }
  static TBackward0 save(const Tensor&, const Tensor&) { return {}; }
};
struct Permute : ViewOp {
  static constexpr const char* name = "aten::permute";
  static Dims wrapped(const Tensor& self, const Dims& order) {
    EMBER_CHECK(order.size() == self.dim(),
                "permute(sparse_coo): number of dimensions in the tensor input does not "
                "match the length of the desired ordering of dimensions i.e. input.dim() = ",
                self.dim(), " is not equal to len(dims) = ", order.size());
    Dims result;
    std::array<bool, Dims::kMaxDims> seen{};
    for (int64_t d : order) {
      const int64_t w = wrap_dim(d, self.dim());
      EMBER_CHECK(!seen[w], "permute(): duplicate dims are not allowed.");
      seen[w] = true;
      result.push_back(w);
    }
    return result;
  }
  static Tensor compute(const Tensor& self, const Dims& order) {
    Dims new_sizes, new_strides;
    for (int64_t w : wrapped(self, order)) {
      new_sizes.push_back(self.sizes()[w]);
      new_strides.push_back(self.strides()[w]);
    }
    return strided_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static PermuteBackward0 save(const Tensor&, const Tensor& self, const Dims& order) { return {wrapped(self, order)}; }
};
struct Expand : ViewOp {  // expand(self, size, implicit): `implicit` changes nothing but the profile's arguments
  static constexpr const char* name = "aten::expand";
  static Tensor compute(const Tensor& self, const Dims& target, bool /*implicit*/) {
    const int64_t ndim = target.size(), tensor_dim = self.dim();
    EMBER_CHECK(ndim >= tensor_dim, "expand(", legacy_type_name(self.dtype(), !self.device().is_cpu()), "{",
                to_string(self.sizes()), "}, size=", to_string(target), "): the number of sizes provided (", ndim,
                ") must be greater or equal to the number of dimensions in the tensor (", tensor_dim, ")");
    // A 0-dim tensor takes the sizes as given (ATen's inferExpandGeometry): a -1 is a size there,
    // refused with the element count's text. Negative sizes are refused by that count everywhere.
    if (tensor_dim == 0) return strided_view(self, target, Dims::filled(ndim, 0), self.storage_offset());
    Dims new_sizes = Dims::filled(ndim, 0), new_strides = Dims::filled(ndim, 0);
    for (int64_t i = ndim - 1; i >= 0; --i) {
      const int64_t d = tensor_dim - 1 - (ndim - 1 - i);
      int64_t size = d >= 0 ? self.sizes()[d] : 1;
      int64_t stride = d >= 0 ? self.strides()[d] : wrapping_multiply(new_sizes[i + 1], new_strides[i + 1]);
      int64_t target_size = target[i];
      if (target_size == -1) {
        EMBER_CHECK(d >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ",
                    i);
        target_size = size;
      }
      if (size != target_size) {
        EMBER_CHECK(size == 1, "The expanded size of the tensor (", target_size, ") must match the existing size (",
                    size, ") at non-singleton dimension ", i, ".  Target sizes: ", to_string(target),
                    ".  Tensor sizes: ", to_string(self.sizes()));
        size = target_size;
        stride = 0;
      }
      new_sizes[i] = size;
      new_strides[i] = stride;
    }
    return strided_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static ExpandBackward0 save(const Tensor&, const Tensor& self, const Dims&, bool) { return {self.sizes()}; }
};
struct Squeeze : ViewOp {  // every size-1 dim
  static constexpr const char* name = "aten::squeeze";
  static Tensor compute(const Tensor& self) {
    Dims new_sizes, new_strides;
    for (int64_t d = 0; d < self.dim(); ++d)
      if (self.sizes()[d] != 1) {
        new_sizes.push_back(self.sizes()[d]);
        new_strides.push_back(self.strides()[d]);
      }
    return strided_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static SqueezeBackward0 save(const Tensor&, const Tensor& self) { return {{self.sizes()}}; }
};
struct SqueezeDim : ViewOp {
  static constexpr const char* name = "aten::squeeze";
  static Tensor compute(const Tensor& self, int64_t dim) { return squeezed(self, dim, strided_view); }
  // self without `dim` when its size is 1, made by `make_view` (alias_with or strided_view).
  template <typename MakeView>
  static Tensor squeezed(const Tensor& self, int64_t dim, MakeView make_view) {
    const int64_t d = wrap_dim(dim, self.dim());
    Dims new_sizes = self.sizes(), new_strides = self.strides();
    if (self.dim() > 0 && self.sizes()[d] == 1) {
      new_sizes.erase(d);
      new_strides.erase(d);
    }
    return make_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static SqueezeBackward1 save(const Tensor&, const Tensor& self, int64_t) { return {{self.sizes()}}; }
};
struct Unsqueeze : ViewOp {
  static constexpr const char* name = "aten::unsqueeze";
  static Tensor compute(const Tensor& self, int64_t dim) {
    const int64_t d = wrap_dim(dim, self.dim() + 1);
    Dims new_sizes = self.sizes(), new_strides = self.strides();
    new_sizes.insert(d, 1);
    new_strides.insert(d, d < self.dim() ? wrapping_multiply(self.sizes()[d], self.strides()[d]) : 1);
    return strided_view(self, new_sizes, new_strides, self.storage_offset());
  }
  static UnsqueezeBackward0 save(const Tensor&, const Tensor& self, int64_t dim) {
    return {wrap_dim(dim, self.dim() + 1)};
  }
};

// reshape is a view when the strides allow it, otherwise a copy (then viewed); composite, so a
// profile shows aten::reshape around the _reshape_alias or the clone, as PyTorch's does.
struct Reshape : CompositeOp {
  static constexpr const char* name = "aten::reshape";
  static Tensor compute(const Tensor& self, const Dims& shape) {
    Dims new_sizes = infer_size(shape, self.numel());
    if (auto new_strides = view_strides(self.sizes(), self.strides(), new_sizes))
      return call<ReshapeAlias>(self, new_sizes, *new_strides);
    return unsafe_view(self.clone(MemoryFormat::Contiguous), new_sizes);
  }
};
struct ViewAs : CompositeOp {  // self.view(other.sizes()), as ATen's composite
  static constexpr const char* name = "aten::view_as";
  static Tensor compute(const Tensor& self, const Tensor& other) { return self.view(other.sizes()); }
};

// Not a view op: its result shares the storage but records no history and no base. An op all the
// same, so that a profile shows it (AccumulateGrad detaches the gradient it keeps, as in PyTorch);
// detach_copy's, below autograd, lacks the inner "detach" step of PyTorch's autograd kernel.
template <bool called_by_a_user>
struct Detach : FunctionalOp {
  static constexpr const char* name = "aten::detach";
  static Tensor compute(const Tensor& self) {
    if constexpr (called_by_a_user) profiler::OpEvent<profiler::steps::Detach> step(self);
    return internal::alias(self);
  }
};

}  // namespace

Tensor Tensor::detach() const { return call<Detach<true>>(*this); }

Tensor as_strided(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
  EMBER_CHECK(!(GradMode::is_enabled() && self.requires_grad()),
              "ember: as_strided does not support autograd; use the named view ops");
  return call<AsStrided>(self, sizes, strides, storage_offset);
}
Tensor as_strided_recorded(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
  return call<AsStridedRecorded>(self, sizes, strides, storage_offset);
}
Tensor Tensor::view(const Dims& shape) const { return call<View>(*this, shape); }
Tensor Tensor::view_as(const Tensor& other) const { return call<ViewAs>(*this, other); }

Tensor Tensor::reshape(const Dims& shape) const { return call<Reshape>(*this, shape); }

Tensor unsafe_view(const Tensor& self, const Dims& shape) { return call<UnsafeView>(self, shape); }
void squeeze_in_place(Tensor& self, int64_t dim) {
  SqueezeDim::squeezed(self, dim, [&](const Tensor&, const Dims& sizes, const Dims& strides, int64_t offset) {
    self.impl()->set_layout(sizes, strides, offset);
    return self;
  });
  self.impl()->version_counter->bump();
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return call<Select>(*this, dim, index); }
Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const {
  return call<Slice>(*this, dim, start, end, step);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const { return call<Transpose>(*this, dim0, dim1); }
Tensor Tensor::t() const { return call<MatrixTranspose>(*this); }
Tensor Tensor::permute(const Dims& order) const { return call<Permute>(*this, order); }
Tensor Tensor::expand(const Dims& target) const { return call<Expand>(*this, target, false); }
Tensor Tensor::squeeze() const { return call<Squeeze>(*this); }
Tensor Tensor::squeeze(int64_t dim) const { return call<SqueezeDim>(*this, dim); }
Tensor Tensor::unsqueeze(int64_t dim) const { return call<Unsqueeze>(*this, dim); }

// ---- a view, then a copy of it (view_copies.h) ----
Tensor expand_copy(const Tensor& self, const Dims& size, bool implicit) {
  return copy_of_view<Expand>(self, size, implicit);
}
Tensor permute_copy(const Tensor& self, const Dims& dims) { return copy_of_view<Permute>(self, dims); }
Tensor view_copy(const Tensor& self, const Dims& size) { return copy_of_view<View>(self, size); }
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index) { return copy_of_view<Select>(self, dim, index); }
Tensor slice_copy(const Tensor& self, int64_t dim, int64_t start, int64_t end, int64_t step) {
  return copy_of_view<Slice>(self, dim, start, end, step);
}
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1) {
  return copy_of_view<Transpose>(self, dim0, dim1);
}
Tensor t_copy(const Tensor& self) { return copy_of_view<MatrixTranspose>(self); }
Tensor squeeze_copy(const Tensor& self) { return copy_of_view<Squeeze>(self); }
Tensor squeeze_copy(const Tensor& self, int64_t dim) { return copy_of_view<SqueezeDim>(self, dim); }
Tensor unsqueeze_copy(const Tensor& self, int64_t dim) { return copy_of_view<Unsqueeze>(self, dim); }
Tensor as_strided_copy(const Tensor& self, const Dims& size, const Dims& stride, int64_t storage_offset) {
  return copy_of_view<AsStridedRecorded>(self, size, stride, storage_offset);
}
Tensor detach_copy(const Tensor& self) { return copy_of_view<Detach<false>>(self); }
Tensor alias_copy(const Tensor& self) { return copy_of_view<Alias>(self); }
Tensor _reshape_alias_copy(const Tensor& self, const Dims& size, const Dims& stride) {
  return copy_of_view<ReshapeAlias>(self, size, stride);
}

}  // namespace ember
