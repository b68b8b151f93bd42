// The views PyTorch writes with other views (its CompositeImplicitAutograd ops): narrow is a slice,
// flatten a reshape, movedim and swapaxes are a permute and a transpose, T and mT reverse or swap
// dims, unflatten is a view, broadcast_to an expand, tensor_split and hsplit/vsplit/dsplit are
// slices, atleast_nd reshapes or unsqueezes. Each is a CompositeOp: a profile shows its own event
// with the view inside (aten::movedim > aten::permute), and autograd records the inner view's node
// (PermuteBackward0), so the result is a view of the input as PyTorch's is. The argument checks and
// texts are ATen's (TensorShape.cpp).
#include <algorithm>
#include <numeric>

#include "api/new_tensors.h"
#include "api/ops.h"
#include "core/size_arithmetic.h"
#include "core/warning.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "shape_rules.h"

namespace ember {

namespace {

Dims wrapped(const Dims& dims, int64_t ndim) {
  Dims out = dims;
  for (int64_t i = 0; i < out.size(); ++i) out[i] = wrap_dim(out[i], ndim);
  return out;
}

bool all_unique(Dims dims) {
  std::sort(dims.begin(), dims.end());
  return std::adjacent_find(dims.begin(), dims.end()) == dims.end();
}

struct Movedim : CompositeOp {
  static constexpr const char* name = "aten::movedim";
  static Tensor compute(const Tensor& self, const Dims& source, const Dims& destination) {
    EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
                to_string(source), " dims) should contain the same number of dims as destination (",
                to_string(destination), " dims)");
    const int64_t ndim = self.dim();
    const Dims from = wrapped(source, ndim), to = wrapped(destination, ndim);
    EMBER_CHECK(all_unique(from), "movedim: repeated dim in `source` (", to_string(source), ")");
    EMBER_CHECK(all_unique(to), "movedim: repeated dim in `destination` (", to_string(destination), ")");
    if (ndim == 0) return self.permute({});  // ATen's self.alias(), which ember does not have
    // The moved dims go where they are sent; the others keep their order in the places left.
    Dims order = std::vector<int64_t>(ndim, -1);
    std::vector<bool> moved(ndim, false);
    for (int64_t i = 0; i < from.size(); ++i) {
      order[to[i]] = from[i];
      moved[from[i]] = true;
    }
    int64_t next_unmoved = 0;
    for (int64_t d = 0; d < ndim; ++d) {
      if (order[d] != -1) continue;
      while (moved[next_unmoved]) ++next_unmoved;
      order[d] = next_unmoved++;
    }
    return self.permute(order);
  }
};
struct Moveaxis : CompositeOp {  // numpy's name for movedim
  static constexpr const char* name = "aten::moveaxis";
  static Tensor compute(const Tensor& self, const Dims& source, const Dims& destination) {
    return call<Movedim>(self, source, destination);
  }
};
template <bool numpy_names>  // swapaxes (numpy's name) or swapdims
struct Swap : CompositeOp {
  static constexpr const char* name = numpy_names ? "aten::swapaxes" : "aten::swapdims";
  static Tensor compute(const Tensor& self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); }
};
struct NumpyT : CompositeOp {  // Tensor.T: every dim reversed
  static constexpr const char* name = "aten::numpy_T";
  static Tensor compute(const Tensor& self) {
    const int64_t ndim = self.dim();
    if (ndim != 2 && ndim != 0)
      warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.");
    Dims order = std::vector<int64_t>(ndim);
    for (int64_t d = 0; d < ndim; ++d) order[d] = ndim - 1 - d;
    return self.permute(order);
  }
};
struct MatrixT : CompositeOp {  // Tensor.mT: each matrix of a batch transposed
  static constexpr const char* name = "aten::mT";
  static Tensor compute(const Tensor& self) {
    EMBER_CHECK(self.dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got ", self.dim(),
                "-D tensor.");
    return self.transpose(-2, -1);
  }
};
struct Unflatten : CompositeOp {
  static constexpr const char* name = "aten::unflatten";
  static Tensor compute(const Tensor& self, int64_t dim, const Dims& sizes) {
    dim = wrap_dim(dim, self.dim());
    EMBER_CHECK(sizes.size() > 0, "unflatten: sizes must be non-empty");
    Dims inferred;
    try {
      inferred = infer_size(sizes, self.size(dim));
    } catch (const Error& error) {  // ATen's handle_unflatten_exception
      const std::string what = error.what();
      EMBER_CHECK(what.find("is invalid for input of size") != std::string::npos,
                  "unflatten got an unexpected error:\n", what);
      throw Error(str_cat("unflatten: Provided sizes ", to_string(sizes), " don't multiply up to the size of dim ", dim,
                          " (", self.size(dim), ") in the input tensor"));
    }
    std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
    shape.erase(shape.begin() + dim);
    shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
    return self.view(shape);
  }
};
// narrow's checks, shared with narrow_copy: the dim and start wrapped, the range inside the dim.
void check_narrow(const Tensor& self, int64_t& dim, int64_t& start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, self.dim());
  const int64_t size = self.size(dim);
  // PyTorch wraps `start` like a dimension index, except that start == size (an empty slice at
  // the end) is valid: cat's backward narrows an empty input there.
  if (start != size) start = wrap_dim(start, size);
  EMBER_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
              ") exceeds dimension size (", size, ").");
}
struct Narrow : CompositeOp {  // length elements from start along dim: a slice
  static constexpr const char* name = "aten::narrow";
  static Tensor compute(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
    check_narrow(self, dim, start, length);
    return self.slice(dim, start, start + length, 1);
  }
};
// ATen's narrow_copy_dense_cpu: empty_like(self) resized to the narrowed sizes, the part copied in
// (no view op runs, so a profile shows only the empty_like). derivatives.yaml gives it none.
struct NarrowCopy : FunctionalOp {
  static constexpr const char* name = "aten::narrow_copy";
  static Tensor compute(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
    check_narrow(self, dim, start, length);
    Dims sizes = self.sizes();
    sizes[dim] = length;
    const Tensor part =
        internal::alias_with_layout(self, sizes, self.strides(), self.storage_offset() + start * self.stride(dim));
    Tensor out = internal::recorded_empty_like(self, MemoryFormat::Preserve);
    out.impl()->set_layout(sizes, contiguous_strides(sizes), 0);
    kernels::on(out.device()).copy(out, part);
    return out;
  }
  static autograd::NotImplemented save(const Tensor&, const Tensor&, int64_t, int64_t, int64_t) {
    return {"aten::narrow_copy"};
  }
};
struct BroadcastTo : CompositeOp {
  static constexpr const char* name = "aten::broadcast_to";
  static Tensor compute(const Tensor& self, const Dims& size) { return self.expand(size); }
};
// Each tensor expanded to the shape they broadcast to; one that has it already is returned as it is.
struct BroadcastTensors : CompositeOp {
  static constexpr const char* name = "aten::broadcast_tensors";
  static std::vector<Tensor> compute(const std::vector<Tensor>& tensors) {
    if (tensors.empty()) return {};
    Dims shape = tensors[0].sizes();
    for (size_t i = 1; i < tensors.size(); ++i) shape = broadcast_shapes(shape, tensors[i].sizes());
    std::vector<Tensor> out;
    for (const Tensor& t : tensors) out.push_back(t.sizes() == shape ? t : t.expand(shape));
    return out;
  }
};
struct ReshapeAs : CompositeOp {
  static constexpr const char* name = "aten::reshape_as";
  static Tensor compute(const Tensor& self, const Tensor& other) { return self.reshape(other.sizes()); }
};

// tensor_split's pieces: slices of self along dim, from each boundary to the next.
std::vector<Tensor> slices_between(const Tensor& self, int64_t dim, const std::vector<int64_t>& boundaries) {
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t end : boundaries) {
    pieces.push_back(self.slice(dim, start, end));
    start = end;
  }
  pieces.push_back(self.slice(dim, start, self.size(dim)));
  return pieces;
}
struct TensorSplit : CompositeOp {
  static constexpr const char* name = "aten::tensor_split";
  static void check_dims(const Tensor& self) {
    EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
                self.dim(), " dims");
  }
  // `sections` pieces as equal as can be: the first size % sections are one longer.
  static std::vector<Tensor> compute(const Tensor& self, int64_t sections, int64_t dim) {
    check_dims(self);
    dim = wrap_dim(dim, self.dim());
    EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
    const int64_t size = self.size(dim), shortest = size / sections, one_longer = size % sections;
    std::vector<int64_t> boundaries;
    for (int64_t i = 0, end = 0; i + 1 < sections; ++i) boundaries.push_back(end += shortest + (i < one_longer));
    return slices_between(self, dim, boundaries);
  }
  // Cut before each index.
  static std::vector<Tensor> compute(const Tensor& self, const std::vector<int64_t>& indices, int64_t dim) {
    check_dims(self);
    return slices_between(self, wrap_dim(dim, self.dim()), indices);
  }
};

// hsplit, vsplit and dsplit: tensor_split along dims 1 (0 for a 1-D tensor), 0 and 2.
enum class SplitAxis { H, V, D };
template <SplitAxis axis>
struct DirectionalSplit : CompositeOp {
  static constexpr const char* name = axis == SplitAxis::H   ? "aten::hsplit"
                                      : axis == SplitAxis::V ? "aten::vsplit"
                                                             : "aten::dsplit";
  static constexpr const char* torch_name = axis == SplitAxis::H   ? "torch.hsplit"
                                            : axis == SplitAxis::V ? "torch.vsplit"
                                                                   : "torch.dsplit";
  static int64_t checked_dim(const Tensor& self) {
    const int64_t needed = axis == SplitAxis::H ? 1 : axis == SplitAxis::V ? 2 : 3;
    EMBER_CHECK(self.dim() >= needed, torch_name, " requires a tensor with at least ", needed,
                " dimension, but got a tensor with ", self.dim(), " dimensions!");
    return axis == SplitAxis::H ? (self.dim() == 1 ? 0 : 1) : axis == SplitAxis::V ? 0 : 2;
  }
  static std::vector<Tensor> compute(const Tensor& self, int64_t sections) {
    const int64_t dim = checked_dim(self);
    EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, torch_name, " attempted to split along dimension ",
                dim, ", but the size of the dimension ", self.size(dim), " is not divisible by the split_size ",
                sections, "!");
    return call<TensorSplit>(self, sections, dim);
  }
  static std::vector<Tensor> compute(const Tensor& self, const std::vector<int64_t>& indices) {
    return call<TensorSplit>(self, indices, checked_dim(self));
  }
};

// atleast_1d/2d/3d: a tensor with fewer dims gets leading (and, for 3-D, trailing) dims of size 1;
// one with enough is returned as it is.
template <int64_t n>
struct AtLeast : CompositeOp {
  static constexpr const char* name = n == 1 ? "aten::atleast_1d" : n == 2 ? "aten::atleast_2d" : "aten::atleast_3d";
  static Tensor one(const Tensor& self) {
    if (self.dim() >= n) return self;
    if (self.dim() == 0) return self.reshape(Dims(std::vector<int64_t>(n, 1)));
    if (n == 3 && self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
    return n == 2 ? self.unsqueeze(0) : self.unsqueeze(-1);  // 2-D from 1-D; 3-D from 2-D
  }
  static Tensor compute(const Tensor& self) { return one(self); }
  static std::vector<Tensor> compute(const std::vector<Tensor>& tensors) {
    std::vector<Tensor> out;
    for (const Tensor& t : tensors) out.push_back(one(t));
    return out;
  }
};

}  // namespace

Tensor movedim(const Tensor& self, const Dims& source, const Dims& destination) {
  return call<Movedim>(self, source, destination);
}
Tensor moveaxis(const Tensor& self, const Dims& source, const Dims& destination) {
  return call<Moveaxis>(self, source, destination);
}
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return call<Swap<true>>(self, axis0, axis1); }
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) { return call<Swap<false>>(self, dim0, dim1); }
Tensor unflatten(const Tensor& self, int64_t dim, const Dims& sizes) { return call<Unflatten>(self, dim, sizes); }
Tensor broadcast_to(const Tensor& self, const Dims& size) { return call<BroadcastTo>(self, size); }
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) { return call<BroadcastTensors>(tensors); }
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  return call<TensorSplit>(self, sections, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, const std::vector<int64_t>& indices, int64_t dim) {
  return call<TensorSplit>(self, indices, dim);
}
// A tensor holding the sections (0-dim) or the indices (1-D), int64 on the CPU.
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  const Tensor& split = tensor_indices_or_sections;
  EMBER_CHECK(split.device().is_cpu(), "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              split.device().str());
  EMBER_CHECK(split.dtype() == kInt64,
              "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
              scalar_type_name(split.dtype()));
  EMBER_CHECK(
      split.dim() <= 1,
      "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but "
      "got a tensor with ",
      split.dim(), " dims");
  if (split.dim() == 0) return tensor_split(self, split.item<int64_t>(), dim);
  return tensor_split(self, split.to_vector<int64_t>(), dim);
}
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return call<DirectionalSplit<SplitAxis::H>>(self, sections);
}
std::vector<Tensor> hsplit(const Tensor& self, const std::vector<int64_t>& indices) {
  return call<DirectionalSplit<SplitAxis::H>>(self, indices);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return call<DirectionalSplit<SplitAxis::V>>(self, sections);
}
std::vector<Tensor> vsplit(const Tensor& self, const std::vector<int64_t>& indices) {
  return call<DirectionalSplit<SplitAxis::V>>(self, indices);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return call<DirectionalSplit<SplitAxis::D>>(self, sections);
}
std::vector<Tensor> dsplit(const Tensor& self, const std::vector<int64_t>& indices) {
  return call<DirectionalSplit<SplitAxis::D>>(self, indices);
}
Tensor atleast_1d(const Tensor& self) { return call<AtLeast<1>>(self); }
Tensor atleast_2d(const Tensor& self) { return call<AtLeast<2>>(self); }
Tensor atleast_3d(const Tensor& self) { return call<AtLeast<3>>(self); }
std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors) { return call<AtLeast<1>>(tensors); }
std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors) { return call<AtLeast<2>>(tensors); }
std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors) { return call<AtLeast<3>>(tensors); }

// The views ember offers as Tensor methods only.
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return call<NarrowCopy>(self, dim, start, length);
}
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return call<Narrow>(*this, dim, start, length);
}
Tensor Tensor::narrow(int64_t dim, const Tensor& start, int64_t length) const {
  EMBER_CHECK(start.dim() == 0 && start.dtype() == kInt64, "start must be an 0-dim integral Tensor.");
  return narrow(dim, start.item<int64_t>(), length);
}
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const int64_t s = wrap_dim(start_dim, dim()), e = wrap_dim(end_dim, dim());  // checked first, even for 0-dim
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (dim() == 0) return reshape({1});
  if (s == e) return *this;
  Dims new_sizes;
  for (int64_t d = 0; d < s; ++d) new_sizes.push_back(sizes()[d]);
  int64_t flat = 1;
  for (int64_t d = s; d <= e; ++d) flat = wrapping_multiply(flat, sizes()[d]);  // as ATen's; reshape checks the count
  new_sizes.push_back(flat);
  for (int64_t d = e + 1; d < dim(); ++d) new_sizes.push_back(sizes()[d]);
  return reshape(new_sizes);
}
Tensor Tensor::T() const { return call<NumpyT>(*this); }
Tensor Tensor::mT() const { return call<MatrixT>(*this); }
Tensor Tensor::reshape_as(const Tensor& other) const { return call<ReshapeAs>(*this, other); }

}  // namespace ember
