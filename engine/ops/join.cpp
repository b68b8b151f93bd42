// Joining tensors: cat along an existing dimension, stack along a new one. The result dtype is
// the promotion of all inputs; each input is copied into its slice of the result.
#include <algorithm>

#include "api/new_tensors.h"
#include "core/size_arithmetic.h"
#include "device_checks.h"
#include "dispatch.h"
#include "kernels/backend.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

// Like PyTorch, 1-D empty tensors are skipped (a legacy rule that lets `cat([empty, x])` work).
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }
bool skipped(const Tensor& t, const Tensor* reference) { return legacy_empty(t) && &t != reference; }
// The tensor whose sizes the others must match: the first that is not skipped.
const Tensor* reference_of(const std::vector<Tensor>& tensors) {
  auto found = std::find_if(tensors.begin(), tensors.end(), [](const Tensor& t) { return !legacy_empty(t); });
  return found == tensors.end() ? &tensors[0] : &*found;
}
// ATen's legacy_cat_wrap_dim: dim wrapped for the reference; when every tensor is a legacy empty
// one, dim is not checked at all (cat([empty], -2) is the empty 1-D tensor), so it is 0.
int64_t cat_dim(int64_t dim, const std::vector<Tensor>& tensors) {
  const Tensor* reference = reference_of(tensors);
  return legacy_empty(*reference) ? 0 : wrap_dim(dim, reference->dim());
}

struct Cat : FunctionalOp {
  static constexpr const char* name = "aten::cat";
  static constexpr CastPolicy cast_policy = CastPolicy::Promote;
  static Tensor compute(const std::vector<Tensor>& tensors, int64_t dim) {
    EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
    DType result = tensors[0].dtype();
    for (size_t i = 0; i < tensors.size(); ++i) {
      EMBER_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
      result = promote_types(result, tensors[i].dtype());
    }
    const Tensor* reference = reference_of(tensors);
    const int64_t d = cat_dim(dim, tensors);
    Dims out_sizes = reference->sizes();
    out_sizes[d] = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (skipped(t, reference)) continue;
      EMBER_CHECK(t.dim() == reference->dim(), "Tensors must have same number of dimensions: got ", reference->dim(),
                  " and ", t.dim());
      for (int64_t k = 0; k < t.dim(); ++k)
        EMBER_CHECK(k == d || t.size(k) == reference->size(k), "Sizes of tensors must match except in dimension ", d,
                    ". Expected size ", reference->size(k), " but got size ", t.size(k), " for tensor number ", i,
                    " in the list.");
      internal::check_same_device(*reference, t);
      out_sizes[d] = wrapping_add(out_sizes[d], t.size(d));  // wraps as ATen's: a total past int64 reads as negative
    }
    Tensor out = internal::new_empty(out_sizes, result, reference->device());
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (skipped(t, reference)) continue;
      kernels::on(out.device()).copy(out.narrow(d, offset, t.size(d)), t);
      offset += t.size(d);
    }
    return out;
  }
  static CatBackward0 save(const Tensor&, const std::vector<Tensor>& tensors, int64_t dim) {
    std::vector<Dims> sizes;
    for (const Tensor& t : tensors) sizes.push_back(t.sizes());
    return {cat_dim(dim, tensors), std::move(sizes)};
  }
};

struct Stack : FunctionalOp {
  static constexpr const char* name = "aten::stack";
  static constexpr CastPolicy cast_policy = CastPolicy::Promote;
  static Tensor compute(const std::vector<Tensor>& tensors, int64_t dim) {
    EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
    for (size_t i = 1; i < tensors.size(); ++i)
      EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
                  to_string(tensors[0].sizes()), " at entry 0 and ", to_string(tensors[i].sizes()), " at entry ", i);
    const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
    Dims result_sizes = tensors[0].sizes();
    result_sizes.insert(d, static_cast<int64_t>(tensors.size()));
    product(result_sizes);  // ATen resizes its result first: "numel: integer multiplication overflow"
    std::vector<Tensor> unsqueezed;
    for (const Tensor& t : tensors) unsqueezed.push_back(t.unsqueeze(d));
    return Cat::compute(unsqueezed, d);
  }
  static StackBackward0 save(const Tensor&, const std::vector<Tensor>& tensors, int64_t dim) {
    return {wrap_dim(dim, tensors[0].dim() + 1)};
  }
};

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return call<Cat>(tensors, dim); }
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) { return call<Stack>(tensors, dim); }

}  // namespace ember
