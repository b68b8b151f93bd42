// Python's basic indexing as a chain of view ops (see indexing.h), in the order and with the
// messages of libtorch's applySlicing (aten/src/ATen/TensorIndexing.h, PyTorch 1.13).
#include "indexing.h"

#include <limits>

#include "api/ops.h"

namespace ember {

using namespace indexing;

namespace {

// The dimensions of self that the indices name (integers and slices; None and ... name none).
int64_t count_specified_dimensions(const std::vector<TensorIndex>& indices) {
  int64_t count = 0;
  for (const TensorIndex& index : indices)
    if (std::holds_alternative<int64_t>(index) || std::holds_alternative<Slice>(index)) ++count;
  return count;
}

}  // namespace

Tensor index(const Tensor& self, const std::vector<TensorIndex>& indices) {
  const int64_t specified = count_specified_dimensions(indices);
  if (specified > self.dim()) [[unlikely]]
    throw IndexError(str_cat("too many indices for tensor of dimension ", self.dim()));
  Tensor result = self;
  bool viewed = false;
  int64_t dim = 0;       // the dimension of `result` the next index applies to
  int64_t real_dim = 0;  // the same dimension counted in self, for the messages
  for (const TensorIndex& index : indices) {
    if (const int64_t* i = std::get_if<int64_t>(&index)) {
      const int64_t size = result.size(dim);
      if (*i < -size || *i >= size) [[unlikely]]
        throw IndexError(str_cat("index ", *i, " is out of bounds for dimension ", real_dim, " with size ", size));
      result = result.select(dim, *i);
      ++real_dim;
    } else if (const Slice* s = std::get_if<Slice>(&index)) {
      const int64_t step = s->step.value_or(1);
      EMBER_CHECK(step > 0, "step must be greater than zero");
      result = result.slice(dim, s->start.value_or(0), s->stop.value_or(std::numeric_limits<int64_t>::max()), step);
      ++dim;
      ++real_dim;
    } else if (std::holds_alternative<NoneIndex>(index)) {
      result = result.unsqueeze(dim);
      ++dim;
    } else {  // Ellipsis
      dim += self.dim() - specified;
      real_dim += self.dim() - specified;
    }
    viewed = viewed || !std::holds_alternative<EllipsisIndex>(index);
  }
  // t[...] and t[()] are still new tensors, views of t (PyTorch returns an alias).
  return viewed ? result : self.view(self.sizes());
}

// As libtorch's copy_to: the value's leading dimensions of size 1 are dropped, then it is expanded
// to the indexed view's sizes ("The expanded size of the tensor (3) must match ...").
Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, const Tensor& value) {
  Tensor view = index(self, indices);
  if (view.sizes() == value.sizes() || value.dim() == 0) {
    view.copy_(value);
    return self;
  }
  Dims trimmed = value.sizes();
  while (!trimmed.empty() && trimmed[0] == 1) trimmed.erase(0);
  view.copy_(value.view(trimmed).expand(view.sizes()));
  return self;
}

Tensor& index_put_(Tensor& self, const std::vector<TensorIndex>& indices, Scalar value) {
  index(self, indices).fill_(value);
  return self;
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const { return ember::index(*this, indices); }
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) {
  return ember::index_put_(*this, indices, value);
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) {
  return ember::index_put_(*this, indices, value);
}

}  // namespace ember
