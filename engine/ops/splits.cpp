// Views that cut a tensor into pieces: unbind (one piece per index), split (pieces of a size),
// split_with_sizes (pieces of given sizes), chunk (a number of pieces), and diagonal. Each piece
// is a view of self; an op with several outputs records one node, whose output i is piece i, and
// its pieces may not be modified in place (the node could not describe the change: PyTorch's
// CreationMeta::MULTI_OUTPUT_NODE, inplace.h). The unsafe_ variants make the same pieces as plain
// tensors with version counters of their own, which autograd does not treat as views, so that
// they can be modified in place (and the user answers for it).
#include "api/new_tensors.h"
#include "core/size_arithmetic.h"
#include "dispatch.h"
#include "view_copies.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

std::vector<Dims> sizes_of(const std::vector<Tensor>& pieces) {
  std::vector<Dims> sizes;
  for (const Tensor& piece : pieces) sizes.push_back(piece.sizes());
  return sizes;
}

// The pieces of self along `dim` with the given lengths, as narrow views.
std::vector<Tensor> narrowed(const Tensor& self, const std::vector<int64_t>& lengths, int64_t dim) {
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t length : lengths) {
    pieces.push_back(self.narrow(dim, start, length));
    start += length;
  }
  return pieces;
}

// split_with_sizes's pieces, made as ATen makes them: each an as_strided view, no narrow inside
// (an empty tensor's strides can be anything: its offsets wrap around, as ATen's).
std::vector<Tensor> strided_pieces(const Tensor& self, const std::vector<int64_t>& lengths, int64_t dim) {
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t length : lengths) {
    Dims sizes = self.sizes();
    sizes[d] = length;
    pieces.push_back(internal::view_with_layout(
        self, sizes, self.strides(), wrapping_add(self.storage_offset(), wrapping_multiply(start, self.stride(d)))));
    start += length;
  }
  return pieces;
}

// split(split_size)'s lengths: pieces of split_size, the last one shorter (ATen's split).
std::vector<int64_t> split_lengths(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(dim, self.dim()), size = self.size(d);
  EMBER_CHECK(split_size != 0 || size == 0,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<int64_t> lengths(pieces, split_size);
  lengths.back() = size - split_size * (pieces - 1);
  return lengths;
}

void check_split_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim());
  int64_t total = 0;
  for (int64_t length : split_sizes) {
    EMBER_CHECK(length >= 0,
                "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                to_string(split_sizes));
    total += length;
  }
  EMBER_CHECK(total == self.size(d), "split_with_sizes expects split_sizes to sum exactly to ", self.size(d),
              " (input tensor's size at dimension ", d, "), but got split_sizes=", to_string(split_sizes));
}

struct Unbind : ViewOp {
  static constexpr const char* name = "aten::unbind";
  static std::vector<Tensor> compute(const Tensor& self, int64_t dim) {
    EMBER_CHECK(self.dim() > 0, "Dimension specified as 0 but tensor has no dimensions");
    const int64_t d = wrap_dim(dim, self.dim());
    std::vector<Tensor> pieces;
    for (int64_t i = 0; i < self.size(d); ++i) pieces.push_back(self.select(d, i));
    return pieces;
  }
  static UnbindBackward0 save(const std::vector<Tensor>& pieces, const Tensor& self, int64_t dim) {
    return {wrap_dim(dim, self.dim()), sizes_of(pieces)};
  }
};
struct Split : ViewOp {
  static constexpr const char* name = "aten::split";
  static std::vector<Tensor> compute(const Tensor& self, int64_t split_size, int64_t dim) {
    return narrowed(self, split_lengths(self, split_size, dim), dim);
  }
  static SplitBackward0 save(const std::vector<Tensor>& pieces, const Tensor& self, int64_t, int64_t dim) {
    return {wrap_dim(dim, self.dim()), sizes_of(pieces)};
  }
};
struct SplitWithSizes : ViewOp {
  static constexpr const char* name = "aten::split_with_sizes";
  static std::vector<Tensor> compute(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
    check_split_sizes(self, split_sizes, dim);
    return strided_pieces(self, split_sizes, dim);
  }
  static SplitWithSizesBackward0 save(const std::vector<Tensor>& pieces, const Tensor& self,
                                      const std::vector<int64_t>&, int64_t dim) {
    return {{wrap_dim(dim, self.dim()), sizes_of(pieces)}};
  }
};

// The unsafe variants: the same pieces, each with a version counter of its own and no view record.
std::vector<Tensor> detached_pieces(const std::vector<Tensor>& views) {
  std::vector<Tensor> pieces;
  for (const Tensor& view : views) pieces.push_back(internal::alias_with_new_version(view));
  return pieces;
}
struct UnsafeSplit : FunctionalOp {
  static constexpr const char* name = "aten::unsafe_split";
  static std::vector<Tensor> compute(const Tensor& self, int64_t split_size, int64_t dim) {
    return detached_pieces(Split::compute(self, split_size, dim));
  }
  static UnsafeSplitBackward0 save(const std::vector<Tensor>& pieces, const Tensor& self, int64_t, int64_t dim) {
    return {{wrap_dim(dim, self.dim()), sizes_of(pieces)}};
  }
};
struct UnsafeSplitWithSizes : FunctionalOp {
  static constexpr const char* name = "aten::unsafe_split_with_sizes";
  static std::vector<Tensor> compute(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
    return detached_pieces(SplitWithSizes::compute(self, split_sizes, dim));
  }
  static UnsafeSplitWithSizesBackward0 save(const std::vector<Tensor>& pieces, const Tensor& self,
                                            const std::vector<int64_t>&, int64_t dim) {
    return {{wrap_dim(dim, self.dim()), sizes_of(pieces)}};
  }
};

// chunk: `chunks` pieces of equal size but the last, through split (or split_with_sizes, so that
// an empty dim still gives `chunks` pieces), as ATen's chunk.
template <bool unsafe>
struct Chunk : CompositeOp {
  static constexpr const char* name = unsafe ? "aten::unsafe_chunk" : "aten::chunk";
  static std::vector<Tensor> compute(const Tensor& self, int64_t chunks, int64_t dim) {
    EMBER_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
    EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
    const int64_t size = self.size(wrap_dim(dim, self.dim()));
    const int64_t split_size = (size + chunks - 1) / chunks;
    if (split_size == 0 && size == 0) {
      const std::vector<int64_t> sizes(chunks, 0);
      return unsafe ? unsafe_split_with_sizes(self, sizes, dim) : split_with_sizes(self, sizes, dim);
    }
    return unsafe ? unsafe_split(self, split_size, dim) : split(self, split_size, dim);
  }
};

struct Diagonal : ViewOp {
  static constexpr const char* name = "aten::diagonal";
  static Tensor compute(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
    const int64_t d1 = wrap_dim(dim1, self.dim()), d2 = wrap_dim(dim2, self.dim());
    EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
    int64_t length =
        offset >= 0 ? std::min(self.size(d1), self.size(d2) - offset) : std::min(self.size(d1) + offset, self.size(d2));
    length = std::max<int64_t>(length, 0);
    int64_t start = self.storage_offset();
    if (length > 0) start += offset >= 0 ? offset * self.stride(d2) : -offset * self.stride(d1);
    Dims sizes, strides;
    for (int64_t d = 0; d < self.dim(); ++d)
      if (d != d1 && d != d2) {
        sizes.push_back(self.size(d));
        strides.push_back(self.stride(d));
      }
    sizes.push_back(length);
    strides.push_back(self.stride(d1) + self.stride(d2));
    return internal::view_with_layout(self, sizes, strides, start);
  }
  static DiagonalBackward0 save(const Tensor&, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
    return {self.sizes(), offset, wrap_dim(dim1, self.dim()), wrap_dim(dim2, self.dim())};
  }
};

}  // namespace

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) { return call<Unbind>(self, dim); }
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  return call<Split>(self, split_size, dim);
}
std::vector<Tensor> split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
  return call<SplitWithSizes>(self, split_sizes, dim);
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return call<Chunk<false>>(self, chunks, dim);
}
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim) {
  return call<UnsafeSplit>(self, split_size, dim);
}
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
  return call<UnsafeSplitWithSizes>(self, split_sizes, dim);
}
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return call<Chunk<true>>(self, chunks, dim);
}
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return call<Diagonal>(self, offset, dim1, dim2);
}

// ---- a view, then a copy of it (view_copies.h) ----
std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim) { return copy_of_view<Unbind>(self, dim); }
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim) {
  return copy_of_view<Split>(self, split_size, dim);
}
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim) {
  return copy_of_view<SplitWithSizes>(self, split_sizes, dim);
}
Tensor diagonal_copy(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return copy_of_view<Diagonal>(self, offset, dim1, dim2);
}

}  // namespace ember
