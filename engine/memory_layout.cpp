// Ports of ATen's compute_non_overlapping_and_dense (TensorImpl.cpp), infer_dense_strides
// (TensorUtils.cpp) and TensorIterator's reorder_dimensions / compatible_stride
// (TensorIterator.cpp, PyTorch 1.13).
#include "memory_layout.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace ember {

bool is_contiguous(const Layout& t) {
  if (product(t.sizes) == 0) return true;
  int64_t expected = 1;
  for (int64_t d = t.sizes.size() - 1; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.sizes[d];
  }
  return true;
}

bool is_non_overlapping_and_dense(const Layout& t) {
  const int64_t ndim = t.sizes.size();
  if (is_contiguous(t)) return true;
  if (ndim == 1) return t.sizes[0] < 2 || t.strides[0] == 1;
  std::vector<int64_t> perm(ndim);
  std::iota(perm.begin(), perm.end(), 0);
  // By stride, dims of size 0 or 1 last (their strides do not matter).
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.sizes[a] < 2) return false;
    if (t.sizes[b] < 2) return true;
    return t.strides[a] < t.strides[b];
  });
  int64_t required = 1;
  for (int64_t d : perm) {
    if (t.sizes[d] < 2) return true;
    if (t.strides[d] != required) return false;
    required *= t.sizes[d];
  }
  return true;
}

namespace {

// Sorts `perm` (initially ndim-1, ..., 1, 0: innermost first) by insertion with an ordering that
// may say "ambiguous" (0), exactly as ATen does, so ties keep the contiguous order.
template <typename Compare>
void sort_dims(std::vector<int64_t>& perm, Compare&& should_swap) {
  for (size_t i = 1; i < perm.size(); ++i) {
    size_t dim1 = i;
    for (size_t j = 1; j <= i; ++j) {
      const size_t dim0 = i - j;
      const int comparison = should_swap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
}

std::vector<int64_t> innermost_first(int64_t ndim) {
  std::vector<int64_t> perm(ndim);
  std::iota(perm.rbegin(), perm.rend(), 0);
  return perm;
}

}  // namespace

Dims dense_strides_like(const Layout& t) {
  const int64_t ndim = t.sizes.size();
  std::vector<int64_t> perm = innermost_first(ndim);
  // 1: dim0 goes after dim1; -1: before; 0: ambiguous. Zero strides never move.
  sort_dims(perm, [&](int64_t dim0, int64_t dim1) {
    const int64_t stride0 = t.strides[dim0], stride1 = t.strides[dim1];
    if (stride0 == 0 || stride1 == 0) return 0;
    if (stride0 != stride1) return stride0 < stride1 ? -1 : 1;
    return t.sizes[dim0] > t.sizes[dim1] ? 1 : 0;  // equal strides: the smaller size goes inside
  });
  Dims strides = Dims::filled(ndim, 0);
  int64_t next = 1;
  for (int64_t d : perm) {
    strides[d] = next;
    if (t.sizes[d] > 1) next *= t.sizes[d];
  }
  return strides;
}

Dims preserved_strides(const Layout& t) { return is_non_overlapping_and_dense(t) ? t.strides : dense_strides_like(t); }

Dims elementwise_output_strides(const Dims& shape, std::span<const Layout> inputs) {
  const int64_t ndim = shape.size();
  // The fast paths: all inputs of the output's shape and all contiguous, or all dense alike.
  bool same_shape = true, all_contiguous = true, all_dense_alike = true;
  for (const Layout& in : inputs) {
    same_shape = same_shape && in.sizes == shape;
    all_contiguous = all_contiguous && is_contiguous(in);
    all_dense_alike = all_dense_alike && is_non_overlapping_and_dense(in) && in.strides == inputs[0].strides;
  }
  if (same_shape && all_contiguous) return contiguous_strides(shape);
  if (same_shape && all_dense_alike && !inputs.empty()) return inputs.back().strides;
  // Each input's strides seen at the output's shape: 0 where it was broadcast.
  std::vector<Dims> strides;
  for (const Layout& in : inputs) {
    Dims s = Dims::filled(ndim, 0);
    const int64_t offset = ndim - in.sizes.size();
    for (int64_t d = 0; d < in.sizes.size(); ++d)
      s[offset + d] = in.sizes[d] == 1 && shape[offset + d] != 1 ? 0 : in.strides[d];
    strides.push_back(s);
  }
  std::vector<int64_t> perm = innermost_first(ndim);
  sort_dims(perm, [&](int64_t dim0, int64_t dim1) {
    for (const Dims& s : strides) {
      if (s[dim0] == 0 || s[dim1] == 0) continue;  // broadcast here: the next input decides
      if (s[dim0] != s[dim1]) return s[dim0] < s[dim1] ? -1 : 1;
      if (shape[dim0] > shape[dim1]) return 1;  // equal strides: the smaller size goes inside
    }
    return 0;
  });
  Dims out = Dims::filled(ndim, 0);
  int64_t next = 1;
  for (int64_t d : perm) {
    out[d] = next;
    next *= shape[d];
  }
  // Unpermuted, TensorIterator allocates a plain contiguous output (which treats sizes 0 as 1).
  return perm == innermost_first(ndim) ? contiguous_strides(shape) : out;
}

}  // namespace ember
