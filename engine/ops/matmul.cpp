// matmul and linear, the composite products: PyTorch's matmul rules (1-D operands, folding N-D
// batches into one mm or mv, broadcast batches into bmm) and linear's fast paths, written with the
// primitive products of linalg.cpp, which record their own nodes; and matmul's out= variant, which
// follows the product matmul picks. The path of linear(x, w, b): linear -> addmm -> call<Addmm>
// (linalg.cpp) -> AddmmBackward0 (autograd/linalg_derivatives.h).
#include <span>

#include "api/new_tensors.h"
#include "api/ops.h"
#include "dispatch.h"
#include "out_arguments.h"
#include "products.h"
#include "shape_rules.h"

namespace ember {

namespace {

using autograd::SqueezeBackward3;

// matmul(1-D, 2-D)'s last step: PyTorch squeezes its fresh product in place (squeeze_(0)), so the
// result is no view, its version is 1 and its node is the in-place squeeze's, SqueezeBackward3.
struct SqueezeFresh : FunctionalOp {
  static constexpr const char* name = "aten::squeeze_";
  static Tensor compute(const Tensor& fresh, int64_t dim) {
    Tensor out = internal::alias(fresh);  // an alias, not a view
    squeeze_in_place(out, dim);           // ATen's squeeze_ restrides in place: no as_strided
    return out;
  }
  static SqueezeBackward3 save(const Tensor&, const Tensor& fresh, int64_t) { return {{fresh.sizes()}}; }
};

// matmul and linear are composite: written with the public ops, which record their own nodes.
struct Matmul : CompositeOp {
  static constexpr const char* name = "aten::matmul";
  static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
  static Tensor compute(const Tensor& a, const Tensor& b) {
    const int64_t dim1 = a.dim(), dim2 = b.dim();
    EMBER_CHECK(dim1 > 0 && dim2 > 0, "both arguments to matmul need to be at least 1D, but they are ", dim1, "D and ",
                dim2, "D");
    if (dim1 == 1 && dim2 == 1) return internal::dot(a, b);
    if (dim1 == 2 && dim2 == 1) return internal::mv(a, b);
    if (dim1 == 1 && dim2 == 2) return call<SqueezeFresh>(mm(a.unsqueeze(0), b), 0);
    if (dim1 == 2 && dim2 == 2) return mm(a, b);
    if (matmul_folds(a.sizes(), a.strides(), dim2) || matmul_folds(b.sizes(), b.strides(), dim1)) {
      // Fold the batch dims of the larger operand into its rows: one mm or mv instead of many small
      // products. A batch on the right is folded as its transpose, b^T a^T, and transposed back.
      const bool transpose = dim2 > dim1;
      const Tensor batch = transpose ? b.transpose(-2, -1) : a;
      const Tensor other = !transpose ? b : dim1 == 2 ? a.t() : a;
      Dims output_size(std::span<const int64_t>(batch.sizes().data(), batch.dim() - 1));
      // The row count is computed, not inferred: reshape({-1, 0}) would be ambiguous when the last dim is 0.
      const int64_t rows = product(output_size);
      const Tensor folded = batch.reshape({rows, batch.size(-1)});
      if (other.dim() == 1) return unsafe_view(internal::mv(folded, other), output_size);
      output_size.push_back(other.size(1));
      Tensor out = unsafe_view(mm(folded, other), output_size);
      return transpose ? out.transpose(-2, -1).contiguous() : out;
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
};

struct Linear : CompositeOp {
  static constexpr const char* name = "aten::linear";
  static constexpr CastPolicy cast_policy = CastPolicy::LowerPrecision;
  static Tensor compute(const Tensor& input, const Tensor& weight, const Tensor& bias) {
    if (input.dim() == 2 && bias.defined()) return addmm(bias, input, weight.t());
    if (bias.defined() && input.is_contiguous() && input.dim() == 3) {
      Tensor out = addmm(bias, input.view({input.size(0) * input.size(1), input.size(2)}), weight.t());
      return out.view({input.size(0), input.size(1), out.size(1)});
    }
    Tensor out = matmul(input, weight.t());
    if (bias.defined()) out.add_(bias);
    return out;
  }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) { return call<Matmul>(a, b); }
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return call<Linear>(input, weight, bias);
}

// ---- matmul's out= variant ----
namespace {

// Writes a product of out's dtype into out, resized to it.
Tensor& write_product(Tensor& out, const Tensor& product) {
  internal::check_out_dtype(out, product.dtype());
  internal::resize_output(out, product.sizes());
  return out.copy_(product);
}

// The product matmul runs for these operands (both at least 1-D), which its out= errors name.
const char* matmul_product(const Tensor& a, const Tensor& b) {
  const int64_t dim1 = a.dim(), dim2 = b.dim();
  if (dim1 == 1 && dim2 == 1) return "dot";
  if ((dim1 <= 2 && dim2 <= 2) || matmul_folds(a.sizes(), a.strides(), dim2)) return dim2 == 1 ? "mv" : "mm";
  if (matmul_folds(b.sizes(), b.strides(), dim1)) return dim1 == 1 ? "mv" : "mm";
  return "bmm";
}

// at::dot_out resizes out to a scalar before it checks the dtypes and computes.
Tensor& dot_out(Tensor& out, const Tensor& a, const Tensor& b) {
  internal::resize_output(out, {});
  EMBER_CHECK(out.dtype() == a.dtype(), "result dtype ", scalar_type_name(out.dtype()), " does not match input dtype ",
              scalar_type_name(a.dtype()));
  return out.copy_(internal::dot(a, b));
}

}  // namespace

// matmul's out= follows its product: a vector times a matrix is written as a row and squeezed; a
// folded batch is written through out reshaped to the folded rows, after out was resized (matmul
// itself records nothing, so the refusal of an out that requires grad comes from the product).
Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  autocast::Suspend no_autocast;
  const int64_t dim1 = a.dim(), dim2 = b.dim();
  EMBER_CHECK(dim1 > 0 && dim2 > 0, "both arguments to matmul need to be at least 1D, but they are ", dim1, "D and ",
              dim2, "D");
  if (dim1 == 1 && dim2 == 2) {
    mm_out(out, a.unsqueeze(0), b);
    squeeze_in_place(out, 0);
    return out;
  }
  if (dim1 == 2 && dim2 == 2) return mm_out(out, a, b);
  if (dim1 >= 3 && matmul_folds(a.sizes(), a.strides(), dim2)) {
    Dims output_size(std::span<const int64_t>(a.sizes().data(), dim1 - 1));
    const int64_t rows = product(output_size);
    if (dim2 == 2) output_size.push_back(b.size(1));
    const Tensor folded = a.reshape({rows, a.size(-1)});
    internal::resize_output(out, output_size);
    Tensor folded_out = dim2 == 2 ? out.reshape({rows, b.size(-1)}) : out.reshape({rows});
    if (dim2 == 2) {
      mm_out(folded_out, folded, b);
    } else {
      internal::check_no_autograd("mv", {&folded, &b, &folded_out});
      write_product(folded_out, internal::mv(folded, b));
    }
    if (!folded_out.is_alias_of(out)) out.copy_(folded_out.view(out.sizes()));  // a copy when out is not contiguous
    return out;
  }
  internal::check_no_autograd(matmul_product(a, b), {&a, &b, &out});
  if (dim1 == 1 && dim2 == 1) return dot_out(out, a, b);
  return write_product(out, matmul(a, b));  // mv, a batch folded on the right, bmm
}

}  // namespace ember
