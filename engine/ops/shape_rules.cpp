// Ports of ATen's infer_size (ExpandUtils.cpp), infer_size (InferSize.h) and computeStride
// (TensorUtils.cpp), keeping their messages verbatim. Their products wrap around where ATen's do
// (size_arithmetic.h), and a shape whose element count overflows is refused with ATen's text.
#include "shape_rules.h"

#include "core/size_arithmetic.h"

namespace ember {

Dims broadcast_shapes(const Dims& a, const Dims& b) {
  const int64_t ndim = std::max(a.size(), b.size());
  Dims out = Dims::filled(ndim, 1);
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t offset = ndim - 1 - i;
    const int64_t dim_a = a.size() - 1 - offset, dim_b = b.size() - 1 - offset;
    const int64_t size_a = dim_a >= 0 ? a[dim_a] : 1;
    const int64_t size_b = dim_b >= 0 ? b[dim_b] : 1;
    EMBER_CHECK(size_a == size_b || size_a == 1 || size_b == 1, "The size of tensor a (", size_a,
                ") must match the size of tensor b (", size_b, ") at non-singleton dimension ", i);
    out[i] = size_a == 1 ? size_b : size_a;
  }
  return out;
}

Dims infer_size(const Dims& shape, int64_t numel) {
  int64_t known = 1;
  int64_t infer_dim = -1;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      EMBER_CHECK(infer_dim < 0, "only one dimension can be inferred");
      infer_dim = d;
    } else {
      EMBER_CHECK(shape[d] >= 0, "invalid shape dimension ", shape[d]);
      known = wrapping_multiply(known, shape[d]);  // wraps as ATen's; the result's count is checked below
    }
  }
  Dims result = shape;
  if (numel == known || (infer_dim >= 0 && known > 0 && numel % known == 0)) {
    if (infer_dim >= 0) {
      EMBER_CHECK(known != 0, "cannot reshape tensor of 0 elements into shape ", to_string(shape),
                  " because the unspecified dimension size -1 can be any value and is ambiguous");
      result[infer_dim] = numel / known;
    }
    product(result);  // "numel: integer multiplication overflow", which ATen raises when it makes the view
    return result;
  }
  throw Error(str_cat("shape '", to_string(shape), "' is invalid for input of size ", numel));
}

std::optional<Dims> view_strides(const Dims& sizes, const Dims& strides, const Dims& new_sizes) {
  if (sizes.empty()) return Dims::filled(new_sizes.size(), 1);
  const int64_t numel = product(sizes);
  if (numel == 0 && sizes == new_sizes) return strides;
  Dims new_strides = Dims::filled(new_sizes.size(), 1);
  if (numel == 0) {
    for (int64_t d = new_sizes.size() - 2; d >= 0; --d)
      new_strides[d] = wrapping_multiply(std::max<int64_t>(new_sizes[d + 1], 1), new_strides[d + 1]);
    return new_strides;
  }
  // Walk the old dims from the innermost, grouping runs of dims that are contiguous with each
  // other ("chunks"); each chunk must be covered exactly by a run of new dims.
  int64_t view_d = new_sizes.size() - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = sizes.size() - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= sizes[tensor_d];
    if (tensor_d == 0 ||
        (sizes[tensor_d - 1] != 1 && strides[tensor_d - 1] != wrapping_multiply(tensor_numel, chunk_base_stride))) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = wrapping_multiply(view_numel, chunk_base_stride);
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

bool matmul_folds(const Dims& sizes, const Dims& strides, int64_t other_dim) {
  const size_t dim = sizes.size();
  if (dim < 3 || (other_dim != 1 && other_dim != 2)) return false;
  const bool transposed_batch = dim == 3 && other_dim == 2 && strides[2] != 1 && strides[0] == sizes[1] * sizes[2];
  return !transposed_batch;
}

}  // namespace ember
