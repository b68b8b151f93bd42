// Reductions. Every reduction is done the same way: move the reduced dimensions to the end,
// make the input contiguous, and reduce each row of the resulting [outer, inner] matrix
// (kernels/reduce.cpp); but a sum over one block of dims with kept dims after it sums the columns
// of the input as it lies, in the order ATen does. Integers sum to int64; 16-bit floats
// accumulate in float32 and round once.
#include <algorithm>
#include <cmath>

#include "core/size_arithmetic.h"

#include "api/new_tensors.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "type_promotion.h"

namespace ember {

using namespace autograd;  // the backward nodes
using kernels::ReduceOp;

namespace {

struct Rows {
  Tensor data;  // contiguous [outer, inner]
  int64_t outer = 1;
  int64_t inner = 1;
  Dims out_sizes;  // the result's sizes (with or without the reduced dims)
};

// Which dims `dims` names (all when empty), checked like PyTorch.
std::array<bool, Dims::kMaxDims> reduced_mask(const Tensor& a, const Dims& dims) {
  std::array<bool, Dims::kMaxDims> mask{};
  if (dims.empty()) {
    for (int64_t d = 0; d < a.dim(); ++d) mask[d] = true;
    return mask;
  }
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, a.dim());
    EMBER_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

// The result's sizes: the kept dims, and the reduced ones as 1 with keepdim.
Dims reduced_sizes(const Tensor& a, const std::array<bool, Dims::kMaxDims>& mask, bool keepdim) {
  Dims sizes;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (!mask[d]) sizes.push_back(a.size(d));
    else if (keepdim) sizes.push_back(1);
  }
  return sizes;
}

Rows as_rows(const Tensor& a, const std::array<bool, Dims::kMaxDims>& mask, bool keepdim, DType compute) {
  Rows rows;
  Dims sizes, strides;
  for (int pass = 0; pass < 2; ++pass)  // kept dims first, then reduced dims
    for (int64_t d = 0; d < a.dim(); ++d)
      if (mask[d] == (pass == 1)) {
        sizes.push_back(a.size(d));
        strides.push_back(a.stride(d));
        int64_t& count = pass == 1 ? rows.inner : rows.outer;
        count = wrapping_multiply(count, a.size(d));  // exact but where the other count is 0 (see below)
      }
  rows.out_sizes = reduced_sizes(a, mask, keepdim);
  if (a.numel() == 0) {
    // Nothing to read (outer or inner is exactly 0), and the permuted layout need not have a
    // countable size: [2^62, 0, 2^62] summed over dim 1 would become [2^62, 2^62, 0], which c10's
    // count refuses. The result's sizes are checked when it is made.
    rows.data = internal::new_empty({0}, compute, a.device());
    return rows;
  }
  const Tensor permuted = internal::alias_with_layout(a, sizes, strides, a.storage_offset());
  rows.data = internal::contiguous(internal::converted(permuted, compute));
  return rows;
}

DType sum_dtype(DType dtype) { return is_floating_point(dtype) ? dtype : kInt64; }

// The dims [first, end) when `mask` reduces those and no others and keeps a dim after them (else
// first == end): a sum over them, such as a bias's gradient summed over the batch, reduces the
// columns of each batch of the input as it lies, as ATen's iterator does (so in its order of
// additions), without the transposing copy that moving them to the end would be.
struct ReducedBlock {
  int64_t first = 0, end = 0;
};
ReducedBlock reduced_block(const std::array<bool, Dims::kMaxDims>& mask, int64_t dim) {
  int64_t first = 0;
  while (first < dim && !mask[first]) ++first;
  int64_t end = first;
  while (end < dim && mask[end]) ++end;
  for (int64_t d = end; d < dim; ++d)
    if (mask[d]) return {};
  return end < dim ? ReducedBlock{first, end} : ReducedBlock{};
}

Tensor sum_over(const Tensor& a, const Dims& dims, bool keepdim) {
  const DType result = sum_dtype(a.dtype());
  const DType compute = internal::compute_dtype(result);
  const std::array<bool, Dims::kMaxDims> mask = reduced_mask(a, dims);
  const kernels::KernelTable& kernels = kernels::on(a.device());
  if (const ReducedBlock block = reduced_block(mask, a.dim()); block.end > block.first) {
    Tensor data = internal::contiguous(internal::converted(a, compute));
    int64_t batches = 1, rows = 1, columns = 1;
    for (int64_t d = 0; d < a.dim(); ++d) {
      int64_t& count = d < block.first ? batches : d < block.end ? rows : columns;
      count = wrapping_multiply(count, a.size(d));  // exact unless another count is 0 (nothing to read)
    }
    Tensor out = internal::new_empty(reduced_sizes(a, mask, keepdim), compute, a.device());
    kernels.sum_columns(data, batches, rows, columns, out);
    return internal::converted(out, result);
  }
  Rows rows = as_rows(a, mask, keepdim, compute);
  Tensor out = internal::new_empty(rows.out_sizes, compute, a.device());
  kernels.reduce_rows(ReduceOp::Sum, rows.data, rows.outer, rows.inner, out, {});
  return internal::converted(out, result);
}

Tensor mean_over(const Tensor& a, const Dims& dims, bool keepdim) {
  EMBER_CHECK(a.is_floating_point(),
              "mean(): could not infer output dtype. Input dtype must be either a floating "
              "point or complex dtype. Got: ",
              scalar_type_name(a.dtype()));
  Tensor total = sum_over(a, dims, keepdim);
  const int64_t count = total.numel() == 0 ? 0 : a.numel() / total.numel();
  return total / Scalar(static_cast<double>(count));
}

Tensor extreme_all(const Tensor& a, ReduceOp op) {
  EMBER_CHECK(a.numel() > 0, op == ReduceOp::Max ? "max" : "min",
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  Rows rows = as_rows(a, reduced_mask(a, {}), false, internal::compute_dtype(a.dtype()));
  Tensor out = internal::new_empty({}, rows.data.dtype(), a.device());
  kernels::on(a.device()).reduce_rows(op, rows.data, 1, rows.inner, out, {});
  return internal::converted(out, a.dtype());
}

// `name` is the op the user called, which PyTorch's message names ("argmax(): ...").
ValuesIndices extreme_dim(const Tensor& a, int64_t dim, bool keepdim, ReduceOp op, const char* name = nullptr) {
  const int64_t d = wrap_dim(dim, a.dim());
  if (!name) name = op == ReduceOp::Max ? "max" : "min";
  EMBER_CHECK(a.dim() == 0 || a.size(d) > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  std::array<bool, Dims::kMaxDims> mask{};
  if (a.dim() > 0) mask[d] = true;
  Rows rows = as_rows(a, mask, keepdim, internal::compute_dtype(a.dtype()));
  Tensor values = internal::new_empty(rows.out_sizes, rows.data.dtype(), a.device());
  Tensor indices = internal::new_empty(rows.out_sizes, kInt64, a.device());
  kernels::on(a.device()).reduce_rows(op, rows.data, rows.outer, rows.inner, values, indices);
  return {internal::converted(values, a.dtype()), indices};
}

// ---- the op structs (dispatch.h) ----
// ATen's sum(self, dtype) and sum(self, dim, keepdim, dtype): ember takes no dtype, so it is always
// None, passed only so that record_shapes lists PyTorch's arguments.
using NoDType = std::optional<DType>;
struct Sum : FunctionalOp {  // all elements
  static constexpr const char* name = "aten::sum";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;  // not on PyTorch's CPU list
  static Tensor compute(const Tensor& a, NoDType) { return sum_over(a, {}, false); }
  static SumBackward0 save(const Tensor&, const Tensor& a, NoDType) { return {a.sizes()}; }
  static int kernel_writes(const Tensor&, NoDType) { return 1; }  // see record.h's Note [Kernel writes ...]
};
struct SumDims : FunctionalOp {
  static constexpr const char* name = "aten::sum";
  static constexpr CastPolicy cast_policy = CastPolicy::Fp32;  // not on PyTorch's CPU list
  static Tensor compute(const Tensor& a, const Dims& dims, bool keepdim, NoDType) { return sum_over(a, dims, keepdim); }
  static SumBackward1 save(const Tensor&, const Tensor& a, const Dims& dims, bool keepdim, NoDType) {
    return {a.sizes(), dims, keepdim};
  }
  static int kernel_writes(const Tensor&, const Dims&, bool, NoDType) { return 1; }
};
struct Mean : FunctionalOp {
  static constexpr const char* name = "aten::mean";
  static Tensor compute(const Tensor& a) { return mean_over(a, {}, false); }
  static MeanBackward0 save(const Tensor&, const Tensor& a) { return {a.sizes()}; }
  static int kernel_writes(const Tensor&) { return 2; }
};
struct MeanDims : FunctionalOp {
  static constexpr const char* name = "aten::mean";
  static Tensor compute(const Tensor& a, const Dims& dims, bool keepdim) { return mean_over(a, dims, keepdim); }
  static MeanBackward1 save(const Tensor&, const Tensor& a, const Dims& dims, bool keepdim) {
    return {a.sizes(), dims, keepdim, a};
  }
  static int kernel_writes(const Tensor&, const Dims&, bool) { return 2; }
};
struct MaxAll : FunctionalOp {
  static constexpr const char* name = "aten::max";
  static Tensor compute(const Tensor& a) { return extreme_all(a, ReduceOp::Max); }
  static MaxBackward1 save(const Tensor& result, const Tensor& a) { return {a, SavedTensor::output(result)}; }
  static int kernel_writes(const Tensor&) { return 1; }
};
struct MinAll : FunctionalOp {
  static constexpr const char* name = "aten::min";
  static Tensor compute(const Tensor& a) { return extreme_all(a, ReduceOp::Min); }
  static MinBackward1 save(const Tensor& result, const Tensor& a) { return {{a, SavedTensor::output(result)}}; }
  static int kernel_writes(const Tensor&) { return 1; }
};
// The writes ATen's max(dim)/min(dim) kernel makes into values and indices, each (PyTorch 1.13):
// none for an empty input or with keepdim, one for a 0-d input, else two.
int extreme_dim_kernel_writes(const Tensor& a, bool keepdim) {
  return a.numel() == 0 ? 0 : a.dim() == 0 ? 1 : keepdim ? 0 : 2;
}
struct MaxDim : FunctionalOp {
  static constexpr const char* name = "aten::max";
  static ValuesIndices compute(const Tensor& a, int64_t dim, bool keepdim) {
    return extreme_dim(a, dim, keepdim, ReduceOp::Max);
  }
  static MaxBackward0 save(const ValuesIndices& result, const Tensor& a, int64_t dim, bool keepdim) {
    return {a.sizes(), wrap_dim(dim, a.dim()), keepdim, result.indices};
  }
  static int kernel_writes(const Tensor& a, int64_t, bool keepdim) { return extreme_dim_kernel_writes(a, keepdim); }
};
struct MinDim : FunctionalOp {
  static constexpr const char* name = "aten::min";
  static ValuesIndices compute(const Tensor& a, int64_t dim, bool keepdim) {
    return extreme_dim(a, dim, keepdim, ReduceOp::Min);
  }
  static MinBackward0 save(const ValuesIndices& result, const Tensor& a, int64_t dim, bool keepdim) {
    return {{a.sizes(), wrap_dim(dim, a.dim()), keepdim, result.indices}};
  }
  static int kernel_writes(const Tensor& a, int64_t, bool keepdim) { return extreme_dim_kernel_writes(a, keepdim); }
};
struct Argmax : FunctionalOp {  // no derivative: the result is indices
  static constexpr const char* name = "aten::argmax";
  static Tensor compute(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
    EMBER_CHECK(dim || a.numel() > 0, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
    if (dim) {
      Tensor index = extreme_dim(a, *dim, keepdim, ReduceOp::Max, "argmax").indices;  // the dim checks first
      // ATen's kernel (which refuses bool) runs unless there is nothing to compare: over a dim of
      // size 1 (the answer is 0; a 0-d tensor still runs it) or for an empty result.
      const bool compared = index.numel() > 0 && (a.dim() == 0 || a.size(*dim) > 1);
      EMBER_CHECK(a.dtype() != kBool || !compared, "\"argmax_cpu\" not implemented for 'Bool'");
      return index;
    }
    EMBER_CHECK(a.dtype() != kBool, "\"argmax_cpu\" not implemented for 'Bool'");
    Tensor index = extreme_dim(a.reshape({a.numel()}), 0, false, ReduceOp::Max).indices;
    return keepdim ? index.reshape(Dims::filled(a.dim(), 1)) : index;
  }
};

// max(dim)'s and min(dim)'s gradient into a fresh zero tensor: self[..., index[..., i, ...], ...] =
// src[..., i, ...] along `dim`, where index and src have self's sizes but 1 at `dim`.
// all and any: whether every (any) element is nonzero, as a bool, counting the nonzero elements.
template <bool every>
struct Logical : FunctionalOp {  // no derivative: the result is bool
  static constexpr const char* name = every ? "aten::all" : "aten::any";
  static Tensor compute(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
    const Tensor nonzero = internal::converted(a != 0, kInt64);
    const Tensor counted = dim ? sum_over(nonzero, {*dim}, keepdim) : sum_over(nonzero, {}, false);
    if (!every) return counted > 0;
    return counted == (dim ? a.size(*dim) : a.numel());
  }
};

struct Scatter : InPlaceOp {
  static constexpr const char* name = "aten::scatter_";
  static void compute(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
    EMBER_INTERNAL_ASSERT(self.is_contiguous(), "scatter_ writes a fresh contiguous tensor");
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= self.size(d);
    for (int64_t d = dim + 1; d < self.dim(); ++d) inner *= self.size(d);
    kernels::on(self.device())
        .scatter_rows(self, internal::contiguous(src), internal::contiguous(index), outer,
                      self.dim() == 0 ? 1 : self.size(dim), inner);
  }
};

}  // namespace

void internal::scatter_into_new_tensor(const Tensor& fresh, int64_t dim, const Tensor& index, const Tensor& src) {
  call_on_new_tensor<Scatter>(fresh, dim, index, src);
}

Tensor sum(const Tensor& a) { return call<Sum>(a, NoDType()); }
Tensor sum(const Tensor& a, const Dims& dims, bool keepdim) { return call<SumDims>(a, dims, keepdim, NoDType()); }
Tensor mean(const Tensor& a) { return call<Mean>(a); }
Tensor mean(const Tensor& a, const Dims& dims, bool keepdim) { return call<MeanDims>(a, dims, keepdim); }
Tensor all(const Tensor& a) { return call<Logical<true>>(a, std::optional<int64_t>(), false); }
Tensor all(const Tensor& a, int64_t dim, bool keepdim) {
  return call<Logical<true>>(a, std::optional<int64_t>(dim), keepdim);
}
Tensor any(const Tensor& a) { return call<Logical<false>>(a, std::optional<int64_t>(), false); }
Tensor any(const Tensor& a, int64_t dim, bool keepdim) {
  return call<Logical<false>>(a, std::optional<int64_t>(dim), keepdim);
}
Tensor norm(const Tensor& a, Scalar p) {
  EMBER_CHECK(a.is_floating_point(), "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(a.dtype()), " instead.");
  const double order = p.to<double>();
  if (order == 0) return ne(a, 0).sum().to(a.dtype());
  if (std::isinf(order)) return order > 0 ? max(abs(a)) : min(abs(a));
  if (order == 2) return sqrt(sum(mul(a, a)));
  return pow(sum(pow(abs(a), order)), 1 / order);
}
Tensor max(const Tensor& a) { return call<MaxAll>(a); }
Tensor min(const Tensor& a) { return call<MinAll>(a); }
ValuesIndices max(const Tensor& a, int64_t dim, bool keepdim) { return call<MaxDim>(a, dim, keepdim); }
ValuesIndices min(const Tensor& a, int64_t dim, bool keepdim) { return call<MinDim>(a, dim, keepdim); }
Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) { return call<Argmax>(a, dim, keepdim); }

}  // namespace ember
