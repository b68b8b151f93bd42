// Reductions. Every reduction is done the same way: move the reduced dimensions to the end,
// make the input contiguous, and reduce each row of the resulting [outer, inner] matrix
// (kernels/reduce.cpp). Integers sum to int64; 16-bit floats accumulate in float32 and round once.
#include <algorithm>

#include "autograd/record.h"
#include "internal.h"
#include "kernels/reduce.h"
#include "ops.h"

namespace ember {

using autograd::Op;
using kernels::ReduceOp;

namespace {

struct Rows {
  Tensor data;      // contiguous [outer, inner]
  int64_t outer = 1;
  int64_t inner = 1;
  Dims out_sizes;   // the result's sizes (with or without the reduced dims)
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

Rows as_rows(const Tensor& a, const std::array<bool, Dims::kMaxDims>& mask, bool keepdim, DType compute) {
  internal::check_cpu(a, "reduction");
  Rows rows;
  Dims order, sizes, strides;
  for (int pass = 0; pass < 2; ++pass)  // kept dims first, then reduced dims
    for (int64_t d = 0; d < a.dim(); ++d)
      if (mask[d] == (pass == 1)) {
        order.push_back(d);
        sizes.push_back(a.size(d));
        strides.push_back(a.stride(d));
        (pass == 1 ? rows.inner : rows.outer) *= a.size(d);
      }
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (!mask[d]) rows.out_sizes.push_back(a.size(d));
    else if (keepdim) rows.out_sizes.push_back(1);
  }
  Tensor permuted(std::make_shared<TensorImpl>(a.impl()->storage, sizes, strides, a.storage_offset(), a.dtype()));
  rows.data = internal::contiguous(internal::converted(permuted, compute));
  return rows;
}

// Sum and mean record the same facts: the input's sizes and which dims were reduced.
void record_reduction(const Tensor& out, const Tensor& a, const Dims& dims, bool keepdim, Op grad_op) {
  if (!autograd::needs_grad({&a})) return;
  auto node = autograd::make_node(grad_op, {&a});
  node->args.sizes = a.sizes();
  node->args.dims = dims;
  node->args.keepdim = keepdim;
  autograd::set_history(out, node);
}

DType sum_dtype(DType dtype) { return is_floating_point(dtype) ? dtype : kInt64; }

Tensor sum_impl(const Tensor& a, const Dims& dims, bool keepdim, Op grad_op) {
  const DType result = sum_dtype(a.dtype());
  const DType compute = internal::compute_dtype(result);
  Rows rows = as_rows(a, reduced_mask(a, dims), keepdim, compute);
  Tensor out = internal::new_empty(rows.out_sizes, compute);
  kernels::reduce_rows(ReduceOp::Sum, rows.data, rows.outer, rows.inner, out, {});
  out = internal::converted(out, result);
  record_reduction(out, a, dims, keepdim, grad_op);
  return out;
}

Tensor mean_impl(const Tensor& a, const Dims& dims, bool keepdim, Op grad_op) {
  EMBER_CHECK(a.is_floating_point(), "mean(): could not infer output dtype. Input dtype must be either a floating "
                                     "point or complex dtype. Got: ", scalar_type_name(a.dtype()));
  Tensor total = sum_impl(internal::alias(a), dims, keepdim, Op::Sum);
  const int64_t count = total.numel() == 0 ? 0 : a.numel() / total.numel();
  Tensor out = internal::alias(div(total, Scalar(static_cast<double>(count))));
  record_reduction(out, a, dims, keepdim, grad_op);
  return out;
}

Tensor extreme_all(const Tensor& a, ReduceOp op, Op grad_op) {
  EMBER_CHECK(a.numel() > 0, op == ReduceOp::Max ? "max" : "min",
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
              "the 'dim' argument.");
  Rows rows = as_rows(a, reduced_mask(a, {}), false, internal::compute_dtype(a.dtype()));
  Tensor out = internal::new_empty({}, rows.data.dtype());
  kernels::reduce_rows(op, rows.data, 1, rows.inner, out, {});
  out = internal::converted(out, a.dtype());
  if (autograd::needs_grad({&a})) {
    auto node = autograd::make_node(grad_op, {&a});
    node->saved.emplace_back(a, false);
    node->saved.emplace_back(out, true);
    autograd::set_history(out, node);
  }
  return out;
}

ValuesIndices extreme_dim(const Tensor& a, int64_t dim, bool keepdim, ReduceOp op, Op grad_op) {
  const int64_t d = wrap_dim(dim, a.dim());
  const char* name = op == ReduceOp::Max ? "max" : "min";
  EMBER_CHECK(a.dim() == 0 || a.size(d) > 0, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  std::array<bool, Dims::kMaxDims> mask{};
  if (a.dim() > 0) mask[d] = true;
  Rows rows = as_rows(a, mask, keepdim, internal::compute_dtype(a.dtype()));
  Tensor values = internal::new_empty(rows.out_sizes, rows.data.dtype());
  Tensor indices = internal::new_empty(rows.out_sizes, kInt64);
  kernels::reduce_rows(op, rows.data, rows.outer, rows.inner, values, indices);
  values = internal::converted(values, a.dtype());
  if (autograd::needs_grad({&a})) {
    auto node = autograd::make_node(grad_op, {&a});
    node->num_outputs = 2;
    node->args.sizes = a.sizes();
    node->args.dim = d;
    node->args.keepdim = keepdim;
    node->saved.emplace_back(indices, false);
    autograd::set_history(values, node, 0);
  }
  return {values, indices};
}

}  // namespace

Tensor sum(const Tensor& a) { return sum_impl(a, {}, false, Op::Sum); }
Tensor sum(const Tensor& a, const Dims& dims, bool keepdim) { return sum_impl(a, dims, keepdim, Op::SumDims); }
Tensor mean(const Tensor& a) { return mean_impl(a, {}, false, Op::Mean); }
Tensor mean(const Tensor& a, const Dims& dims, bool keepdim) { return mean_impl(a, dims, keepdim, Op::MeanDims); }
Tensor max(const Tensor& a) { return extreme_all(a, ReduceOp::Max, Op::MaxAll); }
Tensor min(const Tensor& a) { return extreme_all(a, ReduceOp::Min, Op::MinAll); }
ValuesIndices max(const Tensor& a, int64_t dim, bool keepdim) { return extreme_dim(a, dim, keepdim, ReduceOp::Max, Op::MaxDim); }
ValuesIndices min(const Tensor& a, int64_t dim, bool keepdim) { return extreme_dim(a, dim, keepdim, ReduceOp::Min, Op::MinDim); }

Tensor argmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  if (dim) return extreme_dim(internal::alias(a), *dim, keepdim, ReduceOp::Max, Op::MaxDim).indices;
  EMBER_CHECK(a.numel() > 0, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor flat = internal::contiguous(internal::alias(a));
  Tensor index = extreme_dim(Tensor(std::make_shared<TensorImpl>(flat.impl()->storage, Dims{a.numel()}, Dims{1},
                                                                 flat.storage_offset(), a.dtype())),
                             0, false, ReduceOp::Max, Op::MaxDim).indices;
  return keepdim ? internal::alias(index).reshape(Dims::filled(a.dim(), 1)) : index;
}

}  // namespace ember
