// View ops: new sizes/strides/offset over the same storage (so the same version counter), no
// copy. Each one that a gradient can flow through records a node whose formula maps the view's
// gradient back onto its input (formulas.cpp), and remembers its base for the in-place rules.
#include <algorithm>

#include "autograd/inplace.h"
#include "autograd/record.h"
#include "ops.h"
#include "shape_rules.h"

namespace ember {

using autograd::Op;

namespace {

// A view of `self` with another layout; records `op` (args filled by `fill_args`) when needed.
template <typename FillArgs>
Tensor make_view(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t offset, Op op,
                 FillArgs&& fill_args) {
  Tensor view(std::make_shared<TensorImpl>(self.impl()->storage, sizes, strides, offset, self.dtype()));
  if (autograd::needs_grad({&self})) {
    auto node = autograd::make_node(op, {&self});
    node->args.sizes = self.sizes();
    fill_args(node->args);
    autograd::set_history(view, node);
  }
  autograd::record_view(view, self);
  return view;
}

void no_args(autograd::NodeArgs&) {}

}  // namespace

Tensor as_strided(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  int64_t last = storage_offset;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0, "Trying to create tensor with negative dimension ", sizes[d], ": ", to_string(sizes));
    EMBER_CHECK(strides[d] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                to_string(strides));
    if (sizes[d] > 0) last += (sizes[d] - 1) * strides[d];
  }
  const bool empty = product(sizes) == 0;
  EMBER_CHECK(empty || (storage_offset >= 0 && (last + 1) * self.element_size() <= self.impl()->storage->nbytes),
              "setStorage: sizes ", to_string(sizes), ", strides ", to_string(strides), ", storage offset ",
              storage_offset, ", and itemsize ", self.element_size(), " requiring a storage size of ",
              (last + 1) * self.element_size(), " are out of bounds for storage of size ",
              self.impl()->storage->nbytes);
  EMBER_CHECK(!autograd::needs_grad({&self}), "ember: as_strided does not support autograd; use the named view ops");
  return Tensor(std::make_shared<TensorImpl>(self.impl()->storage, sizes, strides, storage_offset, self.dtype()));
}

Tensor Tensor::view(const Dims& shape) const {
  Dims new_sizes = infer_size(shape, numel());
  auto new_strides = view_strides(sizes(), strides(), new_sizes);
  EMBER_CHECK(new_strides.has_value(),
              "view size is not compatible with input tensor's size and stride (at least one dimension spans "
              "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(*this, new_sizes, *new_strides, storage_offset(), Op::View, no_args);
}

// reshape is a view when the strides allow it, otherwise a copy (then viewed).
Tensor Tensor::reshape(const Dims& shape) const {
  Dims new_sizes = infer_size(shape, numel());
  if (auto new_strides = view_strides(sizes(), strides(), new_sizes))
    return make_view(*this, new_sizes, *new_strides, storage_offset(), Op::ReshapeAlias, no_args);
  return unsafe_view(clone(), new_sizes);
}

Tensor unsafe_view(const Tensor& self, const Dims& shape) {
  Dims new_sizes = infer_size(shape, self.numel());
  auto new_strides = view_strides(self.sizes(), self.strides(), new_sizes);
  EMBER_CHECK(new_strides.has_value(), "ember: unsafe_view needs a viewable tensor");
  return make_view(self, new_sizes, *new_strides, self.storage_offset(), Op::UnsafeView, no_args);
}

Tensor Tensor::select(int64_t dim_, int64_t index) const {
  EMBER_CHECK(this->dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim_, this->dim());
  const int64_t size = sizes()[d];
  EMBER_CHECK(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
              to_string(sizes()), " at dimension ", d);
  if (index < 0) index += size;
  Dims new_sizes = sizes(), new_strides = strides();
  new_sizes.erase(d);
  new_strides.erase(d);
  return make_view(*this, new_sizes, new_strides, storage_offset() + index * stride(d), Op::Select,
                   [&](autograd::NodeArgs& args) {
                     args.dim = d;
                     args.index = index;
                   });
}

Tensor Tensor::slice(int64_t dim_, int64_t start, int64_t end, int64_t step) const {
  EMBER_CHECK(this->dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(step > 0, "slice step must be positive");
  const int64_t d = wrap_dim(dim_, this->dim());
  const int64_t size = sizes()[d];
  // Python slicing rules: negative bounds count from the end, out-of-range bounds are clamped.
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Dims new_sizes = sizes(), new_strides = strides();
  new_sizes[d] = (end - start + step - 1) / step;
  new_strides[d] = stride(d) * step;
  return make_view(*this, new_sizes, new_strides, storage_offset() + start * stride(d), Op::Slice,
                   [&](autograd::NodeArgs& args) {
                     args.dim = d;
                     args.start = start;
                     args.end = end;
                     args.step = step;
                   });
}

Tensor Tensor::narrow(int64_t dim_, int64_t start, int64_t length) const {
  EMBER_CHECK(this->dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim_, this->dim());
  const int64_t size = sizes()[d];
  start = wrap_dim(start, size);  // PyTorch wraps `start` like a dimension index
  EMBER_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
              ") exceeds dimension size (", size, ").");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const int64_t d0 = wrap_dim(dim0, dim()), d1 = wrap_dim(dim1, dim());
  if (dim() == 0) return make_view(*this, sizes(), strides(), storage_offset(), Op::Transpose, no_args);
  Dims new_sizes = sizes(), new_strides = strides();
  std::swap(new_sizes[d0], new_sizes[d1]);
  std::swap(new_strides[d0], new_strides[d1]);
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::Transpose, [&](autograd::NodeArgs& args) {
    args.dims = {d0, d1};
  });
}

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  if (dim() < 2) return make_view(*this, sizes(), strides(), storage_offset(), Op::T, no_args);
  return make_view(*this, {size(1), size(0)}, {stride(1), stride(0)}, storage_offset(), Op::T, no_args);
}

Tensor Tensor::permute(const Dims& order) const {
  EMBER_CHECK(order.size() == dim(), "permute(sparse_coo): number of dimensions in the tensor input does not match "
              "the length of the desired ordering of dimensions i.e. input.dim() = ", dim(),
              " is not equal to len(dims) = ", order.size());
  Dims new_sizes, new_strides, wrapped;
  std::array<bool, Dims::kMaxDims> seen{};
  for (int64_t d : order) {
    const int64_t w = wrap_dim(d, dim());
    EMBER_CHECK(!seen[w], "permute(): duplicate dims are not allowed.");
    seen[w] = true;
    wrapped.push_back(w);
    new_sizes.push_back(sizes()[w]);
    new_strides.push_back(strides()[w]);
  }
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::Permute,
                   [&](autograd::NodeArgs& args) { args.dims = wrapped; });
}

Tensor Tensor::expand(const Dims& target) const {
  const int64_t ndim = target.size(), tensor_dim = dim();
  EMBER_CHECK(ndim >= tensor_dim, "expand(", legacy_type_name(dtype(), device().is_cuda()), "{", to_string(sizes()),
              "}, size=", to_string(target), "): the number of sizes provided (", ndim,
              ") must be greater or equal to the number of dimensions in the tensor (", tensor_dim, ")");
  Dims new_sizes = Dims::filled(ndim, 0), new_strides = Dims::filled(ndim, 0);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t d = tensor_dim - 1 - (ndim - 1 - i);
    int64_t size = d >= 0 ? sizes()[d] : 1;
    int64_t stride = d >= 0 ? strides()[d] : (i + 1 < ndim ? new_sizes[i + 1] * new_strides[i + 1] : 1);
    int64_t target_size = target[i];
    if (target_size == -1) {
      EMBER_CHECK(d >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ", i);
      target_size = size;
    }
    if (size != target_size) {
      EMBER_CHECK(size == 1, "The expanded size of the tensor (", target_size, ") must match the existing size (", size,
                  ") at non-singleton dimension ", i, ".  Target sizes: ", to_string(target),
                  ".  Tensor sizes: ", to_string(sizes()));
      EMBER_CHECK(target_size >= 0, "Trying to create tensor with negative dimension ", target_size, ": ",
                  to_string(target));
      size = target_size;
      stride = 0;
    }
    new_sizes[i] = size;
    new_strides[i] = stride;
  }
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::Expand, no_args);
}

Tensor Tensor::squeeze() const {
  Dims new_sizes, new_strides;
  for (int64_t d = 0; d < dim(); ++d)
    if (sizes()[d] != 1) {
      new_sizes.push_back(sizes()[d]);
      new_strides.push_back(strides()[d]);
    }
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::Squeeze, no_args);
}

Tensor Tensor::squeeze(int64_t dim_) const {
  const int64_t d = wrap_dim(dim_, dim());
  Dims new_sizes = sizes(), new_strides = strides();
  if (dim() > 0 && sizes()[d] == 1) {
    new_sizes.erase(d);
    new_strides.erase(d);
  }
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::SqueezeDim, no_args);
}

Tensor Tensor::unsqueeze(int64_t dim_) const {
  const int64_t d = wrap_dim(dim_, dim() + 1);
  Dims new_sizes = sizes(), new_strides = strides();
  new_sizes.insert(d, 1);
  new_strides.insert(d, d < dim() ? sizes()[d] * strides()[d] : 1);
  return make_view(*this, new_sizes, new_strides, storage_offset(), Op::Unsqueeze, no_args);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const int64_t s = wrap_dim(start_dim, dim()), e = wrap_dim(end_dim, dim());
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return *this;
  Dims new_sizes;
  for (int64_t d = 0; d < s; ++d) new_sizes.push_back(sizes()[d]);
  int64_t flat = 1;
  for (int64_t d = s; d <= e; ++d) flat *= sizes()[d];
  new_sizes.push_back(flat);
  for (int64_t d = e + 1; d < dim(); ++d) new_sizes.push_back(sizes()[d]);
  return reshape(new_sizes);
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

}  // namespace ember
