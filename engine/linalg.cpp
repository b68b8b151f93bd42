// Matrix products. mm/addmm/bmm check their arguments with PyTorch's messages and call the gemm
// kernel; matmul folds N-D arguments into those three exactly as ATen's matmul does (so an error
// from a folded call shows the folded sizes, as in PyTorch); linear is addmm with weight.t().
#include "autograd/record.h"
#include "internal.h"
#include "kernels/copy.h"
#include "kernels/matmul.h"
#include "ops.h"
#include "shape_rules.h"

namespace ember {

using autograd::Op;

namespace {

// A 2-D tensor seen as a batch of one, without autograd.
Tensor as_batch(const Tensor& t) {
  return Tensor(std::make_shared<TensorImpl>(t.impl()->storage, Dims{1, t.size(0), t.size(1)},
                                             Dims{t.size(0) * t.size(1), t.stride(0), t.stride(1)},
                                             t.storage_offset(), t.dtype()));
}

void check_shapes_multiply(const Tensor& mat1, const Tensor& mat2) {
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", join_x(mat1.sizes()),
              " and ", join_x(mat2.sizes()), ")");
}

// out = alpha * a @ b + beta * out, treating an empty inner dimension as a zero product.
void run_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  if (a.size(2) == 0) {
    if (beta == 0) kernels::fill(out, 0);
    else if (beta != 1) kernels::copy(out, internal::alias(mul(internal::alias(out), beta)));
    return;
  }
  kernels::gemm(out, a, b, alpha, beta, bias);
}

// The products' formulas read both operands (d(a b) = da b + a db), so both are saved.
void record_product(Op op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (!autograd::needs_grad({&a, &b})) return;
  auto node = autograd::make_node(op, {&a, &b});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(b, false);
  autograd::set_history(out, node);
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  check_shapes_multiply(a, b);
  internal::check_same_device(a, b);
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
              scalar_type_name(b.dtype()));
  internal::check_cpu(a, "mm");
  Tensor out = internal::new_empty({a.size(0), b.size(1)}, a.dtype(), a.device());
  run_gemm(as_batch(out), as_batch(a), as_batch(b), 1, 0, {});
  record_product(Op::Mm, out, a, b);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta_, Scalar alpha_) {
  EMBER_CHECK(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
  EMBER_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
  EMBER_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  check_shapes_multiply(mat1, mat2);
  internal::check_same_device(mat1, mat2);
  internal::check_same_device(self, mat1);
  internal::check_cpu(mat1, "addmm");
  const int64_t M = mat1.size(0), N = mat2.size(1);
  const double beta = beta_.to_double(), alpha = alpha_.to_double();
  Tensor addend = internal::alias(self).expand({M, N});  // PyTorch's expand error for a bad self
  Tensor out = internal::new_empty({M, N}, mat1.dtype(), mat1.device());
  // A bias row (linear's case) goes to the kernel as a bias; any other addend is copied into out.
  const bool bias_row = beta == 1 && alpha == 1 && self.dim() == 1 && self.size(0) == N && self.is_contiguous() &&
                        mat1.size(1) > 0;
  if (!bias_row && beta != 0) kernels::copy(out, addend);
  run_gemm(as_batch(out), as_batch(mat1), as_batch(mat2), alpha, bias_row ? 0 : beta, bias_row ? self : Tensor());
  if (autograd::needs_grad({&self, &mat1, &mat2})) {
    auto node = autograd::make_node(Op::Addmm, {&self, &mat1, &mat2});
    node->args.alpha = alpha_;
    node->args.beta = beta_;
    node->args.sizes = self.sizes();
    node->saved.emplace_back(mat1, false);
    node->saved.emplace_back(mat2, false);
    autograd::set_history(out, node);
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  EMBER_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  EMBER_CHECK(b.size(0) == a.size(0) && b.size(1) == a.size(2),
              "Expected size for first two dimensions of batch2 tensor to be: [", a.size(0), ", ", a.size(2),
              "] but got: [", b.size(0), ", ", b.size(1), "].");
  internal::check_same_device(a, b);
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
              scalar_type_name(b.dtype()));
  internal::check_cpu(a, "bmm");
  Tensor out = internal::new_empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), a.device());
  run_gemm(out, a, b, 1, 0, {});
  record_product(Op::Bmm, out, a, b);
  return out;
}

namespace {

Tensor dot(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
              b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
              " elements respectively");
  EMBER_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
              scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
  Tensor row = internal::alias(a).unsqueeze(0), column = internal::alias(b).unsqueeze(1);
  Tensor out = internal::alias(mm(row, column)).reshape({});
  record_product(Op::Dot, out, a, b);
  return out;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  EMBER_CHECK(a.size(1) == v.size(0), "size mismatch, got ", a.size(0), ", ", a.size(0), "x", a.size(1), ",",
              v.size(0));
  EMBER_CHECK(a.dtype() == v.dtype(), "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
              scalar_type_name(v.dtype()));
  Tensor out = internal::alias(mm(internal::alias(a), internal::alias(v).unsqueeze(1))).squeeze(1);
  record_product(Op::Mv, out, a, v);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t dim1 = a.dim(), dim2 = b.dim();
  EMBER_CHECK(dim1 > 0 && dim2 > 0, "both arguments to matmul need to be at least 1D, but they are ", dim1, "D and ",
              dim2, "D");
  if (dim1 == 1 && dim2 == 1) return dot(a, b);
  if (dim1 == 2 && dim2 == 1) return mv(a, b);
  if (dim1 == 1 && dim2 == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (dim1 == 2 && dim2 == 2) return mm(a, b);
  if (dim1 >= 3 && (dim2 == 1 || dim2 == 2)) {
    // Fold the batch dims of `a` into its rows: one mm instead of many small products.
    Dims output_size(std::span<const int64_t>(a.sizes().data(), dim1 - 1));
    if (dim2 == 2) output_size.push_back(b.size(-1));
    Tensor folded = a.reshape({-1, a.size(-1)});
    Tensor out = mm(folded, dim2 == 1 ? b.unsqueeze(-1) : b);
    return unsafe_view(out, output_size);
  }
  // Batched product with broadcasting of the batch dims.
  const int64_t n = dim1 > 1 ? a.size(-2) : 1, m1 = a.size(-1);
  const int64_t m2 = dim2 > 1 ? b.size(-2) : b.size(-1), p = dim2 > 1 ? b.size(-1) : 1;
  Dims batch1(std::span<const int64_t>(a.sizes().data(), std::max<int64_t>(dim1 - 2, 0)));
  Dims batch2(std::span<const int64_t>(b.sizes().data(), std::max<int64_t>(dim2 - 2, 0)));
  Dims batch = broadcast_shapes(batch1, batch2);
  const int64_t batch_product = product(batch);
  Dims a_size = batch, b_size = batch;
  a_size.push_back(n);
  a_size.push_back(m1);
  b_size.push_back(m2);
  b_size.push_back(p);
  Tensor a3 = a.expand(a_size).reshape({batch_product, n, m1});
  Tensor b3 = b.expand(b_size).reshape({batch_product, m2, p});
  Dims output_shape = batch;
  if (dim1 > 1) output_shape.push_back(n);
  if (dim2 > 1) output_shape.push_back(p);
  return unsafe_view(bmm(a3, b3), output_shape);
}

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
  if (bias.defined() && input.is_contiguous() && input.dim() == 3) {
    Tensor out = addmm(bias, input.view({input.size(0) * input.size(1), input.size(2)}), weight.t());
    return out.view({input.size(0), input.size(1), out.size(1)});
  }
  Tensor out = matmul(input, weight.t());
  if (bias.defined()) out.add_(bias);
  return out;
}

}  // namespace ember
