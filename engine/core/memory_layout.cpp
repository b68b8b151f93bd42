// Ports of ATen's compute_non_overlapping_and_dense (TensorImpl.cpp), infer_dense_strides
// (TensorUtils.cpp) and TensorIterator's reorder_dimensions / compatible_stride
// (TensorIterator.cpp, PyTorch 1.13).
#include "memory_layout.h"

#include <algorithm>
#include <array>
#include <utility>

#include "size_arithmetic.h"

namespace ember {

// (The running products below wrap around where ATen's do: a layout is asked about before its
// sizes are known to fit, and a stride equal to a wrapped product is never a wrong answer that
// matters, since such sizes are then refused.)
bool is_contiguous(const Layout& t) {
  if (std::find(t.sizes.begin(), t.sizes.end(), 0) != t.sizes.end()) return true;  // no elements
  int64_t expected = 1;
  for (int64_t d = t.sizes.size() - 1; d >= 0; --d) {
    if (t.sizes[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected = wrapping_multiply(expected, t.sizes[d]);
  }
  return true;
}

bool is_non_overlapping_and_dense(const Layout& t) {
  const int64_t ndim = t.sizes.size();
  if (is_contiguous(t)) return true;
  if (ndim == 1) return t.sizes[0] < 2 || t.strides[0] == 1;
  // The dims by stride, those of size 0 or 1 last (their strides do not matter): an insertion
  // sort of at most kMaxDims entries.
  auto goes_before = [&](int64_t a, int64_t b) {
    if (t.sizes[a] < 2) return false;
    if (t.sizes[b] < 2) return true;
    return t.strides[a] < t.strides[b];
  };
  Dims perm;
  for (int64_t d = 0; d < ndim; ++d) perm.push_back(d);
  for (int64_t i = 1; i < ndim; ++i)
    for (int64_t j = i; j > 0 && goes_before(perm[j], perm[j - 1]); --j) std::swap(perm[j], perm[j - 1]);
  int64_t required = 1;
  for (int64_t d : perm) {
    if (t.sizes[d] < 2) return true;
    if (t.strides[d] != required) return false;
    required = wrapping_multiply(required, t.sizes[d]);
  }
  return true;
}

namespace {

// Sorts `perm` (initially ndim-1, ..., 1, 0: innermost first) by insertion with an ordering that
// may say "ambiguous" (0), exactly as ATen does, so ties keep the contiguous order. (Dims, not
// std::vector: no allocation on an element-wise op's path.)
template <typename Compare>
void sort_dims(Dims& perm, Compare&& should_swap) {
  for (int64_t i = 1; i < perm.size(); ++i) {
    int64_t dim1 = i;
    for (int64_t j = 1; j <= i; ++j) {
      const int64_t dim0 = i - j;
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

Dims innermost_first(int64_t ndim) {
  Dims perm;
  for (int64_t d = ndim - 1; d >= 0; --d) perm.push_back(d);
  return perm;
}

}  // namespace

Dims dense_strides_like(const Layout& t) {
  const int64_t ndim = t.sizes.size();
  Dims perm = innermost_first(ndim);
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
    if (t.sizes[d] > 1) next = wrapping_multiply(next, t.sizes[d]);
  }
  return strides;
}

Dims preserved_strides(const Layout& t) { return is_non_overlapping_and_dense(t) ? t.strides : dense_strides_like(t); }

Dims elementwise_output_strides(const Dims& shape, std::span<const Layout> inputs) {
  const int64_t ndim = shape.size();
  // The fast paths: all inputs of the output's shape and all contiguous, or all dense alike.
  bool same_shape = true, all_contiguous = true;
  for (const Layout& in : inputs) {
    same_shape = same_shape && in.sizes == shape;
    all_contiguous = all_contiguous && is_contiguous(in);
  }
  if (same_shape && all_contiguous) return contiguous_strides(shape);
  const bool all_dense_alike = std::all_of(inputs.begin(), inputs.end(), [&](const Layout& in) {
    return is_non_overlapping_and_dense(in) && in.strides == inputs[0].strides;
  });
  if (same_shape && all_dense_alike && !inputs.empty()) return inputs.back().strides;
  // Each input's strides seen at the output's shape: 0 where it was broadcast.
  constexpr size_t kMaxInputs = 4;
  EMBER_INTERNAL_ASSERT(inputs.size() <= kMaxInputs, "an element-wise op of at most 4 inputs");
  std::array<Dims, kMaxInputs> strides;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Layout& in = inputs[k];
    strides[k] = Dims::filled(ndim, 0);
    const int64_t offset = ndim - in.sizes.size();
    for (int64_t d = 0; d < in.sizes.size(); ++d)
      strides[k][offset + d] = in.sizes[d] == 1 && shape[offset + d] != 1 ? 0 : in.strides[d];
  }
  Dims perm = innermost_first(ndim);
  sort_dims(perm, [&](int64_t dim0, int64_t dim1) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Dims& s = strides[k];
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
    next = wrapping_multiply(next, shape[d]);
  }
  // Unpermuted, TensorIterator allocates a plain contiguous output (which treats sizes 0 as 1).
  return perm == innermost_first(ndim) ? contiguous_strides(shape) : out;
}

Dims channels_last_strides(const Dims& sizes) {
  EMBER_CHECK(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
  const int64_t c = std::max<int64_t>(sizes[1], 1), h = std::max<int64_t>(sizes[2], 1),
                w = std::max<int64_t>(sizes[3], 1);
  return {c * h * w, 1, w * c, c};
}

}  // namespace ember
