// The primitive matrix products: mm, addmm, bmm, and matmul's 1-D cases dot and mv. Each checks
// its arguments with PyTorch's messages and calls the gemm kernel (kernels/matmul.cpp: oneDNN).
// matmul and linear are composites of these (matmul.cpp). The path of linear(x, w, b): linear ->
// addmm -> call<Addmm> (dispatch.h) -> Addmm::compute -> kernels::on(cpu).gemm -> AddmmBackward0
// (autograd/linalg_derivatives.h).
#include "api/new_tensors.h"
#include "device_checks.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "out_arguments.h"
#include "products.h"
#include "profiler/steps.h"
#include "shape_rules.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

// A 2-D tensor seen as a batch of one.
Tensor as_batch(const Tensor& t) {
  return internal::alias_with_layout(t, Dims{1, t.size(0), t.size(1)},
                                     Dims{t.size(0) * t.size(1), t.stride(0), t.stride(1)}, t.storage_offset());
}

// matrix @ vector for bfloat16 on the CPU, as PyTorch 1.13 computes its small dot and mv there
// (dot_naive, gemv's loops): in order, each product and each running sum rounded to bfloat16. Its
// mm (and oneDNN) sum in float32 instead, so a bfloat16 dot of 100 terms can differ by a few units
// in the last place. The plain loop is the semantics, not a slow path: PyTorch runs the same loop.
Tensor bfloat16_rows_times_vector(const Tensor& matrix, const Tensor& vector) {
  Tensor out = internal::new_empty({matrix.size(0)}, kBFloat16);
  const BFloat16 *m = matrix.data_ptr<BFloat16>(), *v = vector.data_ptr<BFloat16>();
  BFloat16* result = out.data_ptr<BFloat16>();
  for (int64_t i = 0; i < matrix.size(0); ++i) {
    BFloat16 sum = 0.0f;
    for (int64_t k = 0; k < matrix.size(1); ++k) {
      const BFloat16 product = float(m[i * matrix.stride(0) + k * matrix.stride(1)]) * float(v[k * vector.stride(0)]);
      sum = float(sum) + float(product);
    }
    result[i] = sum;
  }
  return out;
}
// Whether PyTorch rounds a bfloat16 dot or mv at each step: only while the matrix (or vector) has
// at most 16^3 = 4096 elements. Above that it hands the product to oneDNN (use_mkldnn_bf16_matmul's
// checksize, on a CPU with AVX-512 as the fixtures' machines have), which sums in float32 and rounds
// once: mv(ones({8, 1024}), ones({1024})) is 1024 per row, where rounding each step stops at 256.
bool rounds_each_step(const Tensor& matrix_or_vector) {
  return matrix_or_vector.dtype() == kBFloat16 && matrix_or_vector.device().is_cpu() &&
         matrix_or_vector.numel() <= 16 * 16 * 16;
}

// A matrix as a batch of one; a batch as it is.
Tensor batched(const Tensor& t) { return t.dim() == 2 ? as_batch(t) : t; }

// An operand (a matrix or a batch) as the gemm kernel reads it: unchanged when it has a unit inner
// stride, else a copy, an aten::clone of the operand as the op was given it, as ATen's.
Tensor gemm_operand(const Tensor& t) {
  return kernels::has_gemm_layout(batched(t)) ? batched(t) : batched(t.clone(MemoryFormat::Contiguous));
}

void check_shapes_multiply(const Tensor& mat1, const Tensor& mat2) {
  EMBER_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", join_x(mat1.sizes()),
              " and ", join_x(mat2.sizes()), ")");
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.dtype() == b.dtype(), "expected scalar type ", scalar_type_name(a.dtype()), " but found ",
              scalar_type_name(b.dtype()));
}

// out = alpha * a @ b + beta * out (+ bias), treating an empty inner dimension as a zero product;
// out, a and b are all matrices or all batches.
void run_gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  const kernels::KernelTable& kernels = kernels::on(out.device());
  if (a.size(a.dim() - 1) == 0) {
    if (beta == 0) kernels.fill(out, 0);
    else if (beta != 1) kernels.copy(out, out * beta);
    return;
  }
  kernels.gemm(batched(out), gemm_operand(a), gemm_operand(b), alpha, beta, bias);
}

// mm's checks of its arguments, before it allocates (or mm_out resizes) the result.
void check_mm_arguments(const Tensor& a, const Tensor& b) {
  internal::check_same_device({{"self", a}, {"mat2", b}}, "wrapper_mm");
  EMBER_CHECK(a.dim() == 2, "self must be a matrix");
  EMBER_CHECK(b.dim() == 2, "mat2 must be a matrix");
  check_shapes_multiply(a, b);
}

// mm's and bmm's product once their arguments are checked, into a new result of `sizes` and `dtype`
// (each op's meta function picks them). With nothing to compute, or an empty inner dim (zeros), no
// data is read, so PyTorch makes no dtype check: mm(float32 [2, 0], float64 [0, 3]) is float32 zeros.
// Else ATen's kernel, named in `bool_error`, refuses a bool `a` on the CPU before dtypes are compared.
Tensor product_after_checks(const Tensor& a, const Tensor& b, const Dims& sizes, DType dtype, const char* bool_error) {
  Tensor out = internal::new_empty(sizes, dtype, a.device());
  if (out.numel() == 0) return out;
  if (a.size(-1) == 0) {
    kernels::on(out.device()).fill(out, 0);
    return out;
  }
  EMBER_CHECK(a.dtype() != kBool || !a.device().is_cpu(), bool_error);
  check_same_dtype(a, b);
  run_gemm(out, a, b, 1, 0, {});
  return out;
}

struct Mm : FunctionalOp {
  static constexpr const char* name = "aten::mm";
  static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
  static Tensor compute(const Tensor& a, const Tensor& b) {
    check_mm_arguments(a, b);
    // The result has a's dtype (ATen's mm meta function).
    return product_after_checks(a, b, {a.size(0), b.size(1)}, a.dtype(),
                                "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  }
  static MmBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) {
    // Each operand is kept for the other's gradient (saved_tensor.h, Note [Saving only what a gradient reads]).
    return {saved_if(b.requires_grad(), a), saved_if(a.requires_grad(), b), is_column_major(a), is_column_major(b)};
  }
};

struct Addmm : FunctionalOp {
  static constexpr const char* name = "aten::addmm";
  static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
  static Tensor compute(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta_, Scalar alpha_) {
    internal::check_same_device({{"self", self}, {"mat1", mat1}, {"mat2", mat2}}, "wrapper_addmm");
    EMBER_CHECK(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
    EMBER_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
    EMBER_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
    EMBER_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
    check_shapes_multiply(mat1, mat2);
    const int64_t M = mat1.size(0), N = mat2.size(1);
    const double beta = beta_.to_double(), alpha = alpha_.to_double();
    Tensor addend = self.expand({M, N});  // PyTorch's expand error for a bad self
    Tensor out = internal::new_empty({M, N}, mat1.dtype(), mat1.device());
    // A bias row (linear's case) goes to the kernel as a bias; any other addend is copied into out.
    const bool bias_row =
        beta == 1 && alpha == 1 && self.dim() == 1 && self.size(0) == N && self.is_contiguous() && mat1.size(1) > 0;
    if (!bias_row && beta != 0) {
      profiler::OpEvent<profiler::steps::Copy> copy(out, addend, false);  // ATen's copy_ of self into out
      kernels::on(out.device()).copy(out, addend);
    }
    run_gemm(out, mat1, mat2, alpha, bias_row ? 0 : beta, bias_row ? self : Tensor());
    return out;
  }
  static AddmmBackward0 save(const Tensor&, const Tensor&, const Tensor& mat1, const Tensor& mat2, Scalar beta,
                             Scalar alpha) {
    // PyTorch saves (and packs, with saved-tensor hooks) mat2 before mat1.
    SavedTensor saved_mat2 = saved_if(mat1.requires_grad(), mat2);
    SavedTensor saved_mat1 = saved_if(mat2.requires_grad(), mat1);
    return {std::move(saved_mat1), std::move(saved_mat2), alpha, beta, is_column_major(mat1), is_column_major(mat2)};
  }
};

struct Bmm : FunctionalOp {
  static constexpr const char* name = "aten::bmm";
  static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
  static Tensor compute(const Tensor& a, const Tensor& b) {
    internal::check_same_device({{"self", a}, {"mat2", b}}, "wrapper_bmm");
    EMBER_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
    EMBER_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
    EMBER_CHECK(b.size(0) == a.size(0) && b.size(1) == a.size(2),
                "Expected size for first two dimensions of batch2 tensor to be: [", a.size(0), ", ", a.size(2),
                "] but got: [", b.size(0), ", ", b.size(1), "].");
    // As mm, but the result has batch2's dtype (ATen's bmm meta function).
    return product_after_checks(a, b, {a.size(0), a.size(1), b.size(2)}, b.dtype(),
                                "\"bmm\" not implemented for 'Bool'");
  }
  static BmmBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) {
    return {saved_if(b.requires_grad(), a), saved_if(a.requires_grad(), b)};
  }
};

// matmul's 1-D cases: a row times a column, a matrix times a column.
struct Dot : FunctionalOp {
  static constexpr const char* name = "aten::dot";
  static Tensor compute(const Tensor& a, const Tensor& b) {
    EMBER_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(), "D tensors");
    EMBER_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
                b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
                " elements respectively");
    EMBER_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
                scalar_type_name(a.dtype()), " and ", scalar_type_name(b.dtype()));
    EMBER_CHECK(a.dtype() != kBool, "\"dot\" not implemented for 'Bool'");
    if (rounds_each_step(a)) return bfloat16_rows_times_vector(a.unsqueeze(0), b).reshape({});
    return Mm::compute(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
  }
  static DotBackward0 save(const Tensor&, const Tensor& a, const Tensor& b) {
    SavedTensor tensor = saved_if(a.requires_grad(), b);  // PyTorch saves `tensor` before self
    return {saved_if(b.requires_grad(), a), std::move(tensor)};
  }
};
struct Mv : FunctionalOp {
  static constexpr const char* name = "aten::mv";
  static Tensor compute(const Tensor& a, const Tensor& v) {
    EMBER_CHECK(a.size(1) == v.size(0), "size mismatch, got ", a.size(0), ", ", a.size(0), "x", a.size(1), ",",
                v.size(0));
    // As mm, but the result has vec's dtype (ATen's addmv); nothing read, no dtype check.
    if (a.numel() == 0) {
      Tensor out = internal::new_empty({a.size(0)}, v.dtype(), a.device());
      kernels::on(out.device()).fill(out, 0);
      return out;
    }
    EMBER_CHECK(a.dtype() != kBool || !a.device().is_cpu(), "\"addmv_impl_cpu\" not implemented for 'Bool'");
    check_same_dtype(a, v);
    if (rounds_each_step(a)) return bfloat16_rows_times_vector(a, v);
    return Mm::compute(a, v.unsqueeze(1)).squeeze(1);
  }
  static MvBackward0 save(const Tensor&, const Tensor& a, const Tensor& v) {
    SavedTensor vec = saved_if(a.requires_grad(), v);  // PyTorch saves vec before self
    return {saved_if(v.requires_grad(), a), std::move(vec)};
  }
};

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) { return call<Mm>(a, b); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) {
  return call<Addmm>(self, mat1, mat2, beta, alpha);
}
Tensor bmm(const Tensor& a, const Tensor& b) { return call<Bmm>(a, b); }
Tensor internal::dot(const Tensor& a, const Tensor& b) { return call<Dot>(a, b); }
Tensor internal::mv(const Tensor& matrix, const Tensor& vector) { return call<Mv>(matrix, vector); }

// ---- mm's out= variant (matmul's is in matmul.cpp): it checks and resizes out where ATen's does,
// so an error leaves out as PyTorch leaves it. PyTorch does not autocast out= variants: the
// product keeps its operands' dtype. ----
namespace {

// An operand as it was before out is resized, when out shares its memory (else the operand itself).
// ATen resizes out before it computes, and when out is the operand itself, the resize changes it;
// ATen then reads the operand while it writes out, which gives other values. ember computes into a
// fresh tensor from the operand as it was and copies (a difference the replay documents,
// test_replay.cpp).
Tensor as_it_is_now(const Tensor& operand, const Tensor& out) {
  if (!out.defined() || !operand.is_alias_of(out)) return operand;
  return internal::alias(operand);
}

}  // namespace

// A structured kernel's order: autograd's refusal, mm's checks, out's dtype, the resize, the product.
Tensor& mm_out(Tensor& out, const Tensor& a, const Tensor& b) {
  autocast::Suspend no_autocast;
  internal::check_no_autograd("mm", {&a, &b, &out});
  check_mm_arguments(a, b);
  internal::check_out_dtype(out, a.dtype());
  const Tensor a_now = as_it_is_now(a, out), b_now = as_it_is_now(b, out);
  internal::resize_output(out, {a.size(0), b.size(1)});
  return out.copy_(mm(a_now, b_now));
}

}  // namespace ember
