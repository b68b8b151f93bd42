// Python's basic indexing, t[0, 1:3, None, ...], as views: libtorch's at::indexing
// (TensorIndexing.h), which torch's `__getitem__` and C++ code share. Each index applies one view op
// in turn (an integer selects, a slice slices, None unsqueezes, the ellipsis skips the dimensions
// no index names), so t[0] is aten::select and shares t's storage and version counter.
//
//   using namespace ember::indexing;
//   Tensor row = index(t, {0});                        // t[0]
//   Tensor block = index(t, {Slice{1, None}, Ellipsis});  // t[1:, ...]
//   index_put_(t, {Slice{}, 0}, 5);                    // t[:, 0] = 5
//
// Indexing with tensors (t[mask], t[idx]) is not in ember. The index types are core/tensor_index.h's,
// so that Tensor's methods (t.index({...}), libtorch's spelling) can take them too.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace ember {

// self[indices]: a view of self, with Python's messages as IndexError ("index 3 is out of bounds for dimension 0
// with size 3", "too many indices for tensor of dimension 1"). A lone integer is t[i] (Tensor::operator[]).
Tensor index(const Tensor& self, const std::vector<indexing::TensorIndex>& indices);
// self[indices] = value: the indexed view filled with value, or value copied into it (broadcast).
Tensor& index_put_(Tensor& self, const std::vector<indexing::TensorIndex>& indices, const Tensor& value);
Tensor& index_put_(Tensor& self, const std::vector<indexing::TensorIndex>& indices, Scalar value);

}  // namespace ember
