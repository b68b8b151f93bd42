// The one list of kernels, each with its signature and its contract: what the op layer has already
// done to the operands (broadcast, converted to the compute dtype, laid out as the line says), so a
// kernel only applies its formula. From this list come the kernel table's slots (backend.h) and
// each device's declarations: namespace cpu (kernels/*.cpp) and namespace cuda (cuda/*.cu). Each
// device fills its table in one screen (kernels/backend.cpp, cuda/kernel_table.cu), and a test walks
// this list and requires every slot on every device the build has.
//
// Adding a kernel: a line here, its CPU body in kernels/, its CUDA body in cuda/, a line in each
// device's table.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "element_math.h"  // UnaryOp

namespace ember::kernels {

// Add/Sub: a + alpha * b, a - alpha * b (rounded once: multiply_add); Maximum/Minimum: element_math.h's;
// Atan2: atan2(a, b), the angle of the point (b, a), floating-point only.
enum class BinaryOp { Add, Sub, Mul, Div, Maximum, Minimum, Atan2, FloorDivide, Remainder };
// Addcmul: self + value * tensor1 * tensor2; Addcdiv: self + value * tensor1 / tensor2 (element_math.h).
enum class TernaryOp { Addcmul, Addcdiv };
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
enum class ReduceOp { Sum, Max, Min };

// KERNEL(name, result type, (parameters)), with its contract above it.
#define EMBER_KERNELS(KERNEL)                                                                                          \
  /* ---- element-wise: out has the broadcast sizes, the inputs are broadcast to them (zero strides) and in the        \
     compute dtype (float32, float64 or int64) ---- */                                                                 \
  /* out = a (op) b; out may alias a (in-place ops pass out == a) */                                                   \
  KERNEL(binary, void, (BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha))               \
  /* out = self + value * tensor1 (op) tensor2 (addcmul, addcdiv); out may alias self */                               \
  KERNEL(ternary, void,                                                                                                \
         (TernaryOp op, const Tensor& out, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,           \
          Scalar value))                                                                                               \
  /* out (bool) = a (op) b */                                                                                          \
  KERNEL(compare, void, (CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b))                           \
  /* out = op(in); in and out laid out alike (flat arrays of the same order), same dtype; exponent is Pow's */         \
  KERNEL(unary, void, (UnaryOp op, const Tensor& out, const Tensor& in, double exponent))                              \
  /* out = condition ? a : b */                                                                                        \
  KERNEL(where, void, (const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b))                  \
  /* out = self <= threshold ? 0 : grad, relu's gradient in one pass; all of out's sizes, float32 or float64 */        \
  KERNEL(threshold_backward, void, (const Tensor& out, const Tensor& grad, const Tensor& self, Scalar threshold))      \
  /* ---- copies: dst[i] = convert(src[i]) for equal sizes and any strides and dtypes (src may have zero               \
     strides); every copy the op layer makes (contiguous, clone, casts, copy_) ends here ---- */                       \
  KERNEL(copy, void, (const Tensor& dst, const Tensor& src))                                                           \
  KERNEL(fill, void, (const Tensor& dst, Scalar value))                                                                \
  /* ---- rows of a contiguous [outer, inner] matrix: the op layer moves reduced dims to the end ---- */               \
  /* values[r] = reduce(in[r, :]); Max/Min also write the first extreme index into `indices` when defined (the         \
     first NaN wins: NaN propagates, as in PyTorch) */                                                                 \
  KERNEL(reduce_rows, void,                                                                                            \
         (ReduceOp op, const Tensor& in, int64_t outer, int64_t inner, const Tensor& values, const Tensor& indices))   \
  /* sums[b, j] = sum over r of in[b, r, j], in a contiguous [batches, rows, columns]: a sum over a block of dims      \
     with kept dims after it (over leading dims, a bias's gradient, has 1 batch) without a transposing copy */         \
  KERNEL(sum_columns, void, (const Tensor& in, int64_t batches, int64_t rows, int64_t columns, const Tensor& sums))    \
  /* max/min's way back: out[o, indices[o, i], i] = values[o, i], out a zeroed contiguous [outer, size, inner] */      \
  KERNEL(scatter_rows, void,                                                                                           \
         (const Tensor& out, const Tensor& values, const Tensor& indices, int64_t outer, int64_t size, int64_t inner)) \
  /* (log-)softmax of each row of a contiguous [rows, n], the row maximum subtracted first */                          \
  KERNEL(softmax_rows, void, (const Tensor& out, const Tensor& in, int64_t rows, int64_t n, bool log))                 \
  /* y = (x - mean) / sqrt(var + eps) * weight + bias per row of a contiguous [rows, n] (biased variance); also        \
     writes each row's mean and rstd for backward; weight and bias undefined or contiguous [n] */                      \
  KERNEL(layer_norm_rows, void,                                                                                        \
         (const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,              \
          const Tensor& bias, int64_t rows, int64_t n, double eps))                                                    \
  /* nll_loss over a contiguous float input seen as [batch, classes, inner] (inner = 1 for [N, C] and [C],             \
     H * W for [N, C, H, W]), target a contiguous int64 [batch, inner], weight undefined or a contiguous [classes]     \
     of the input's dtype. Element e = b * inner + i weighs w = weight[t] (or 1) for its target t, and ignored         \
     targets count nowhere. Per element (output [batch, inner]): output[e] = -w * input[b, t, i], 0 where ignored,     \
     total_weight = 0.                                                                                                 \
     Reduced (output 0-dim): output = the sum of those over the counted elements, in ATen's 8-level cascade, divided   \
     by the total weight when `mean`; total_weight (0-dim) = that total (the count when weight is undefined).          \
     Raises IndexError "Target N is out of bounds." for the first target outside [0, classes) */                       \
  KERNEL(nll_loss_forward, void,                                                                                       \
         (const Tensor& output, const Tensor& total_weight, const Tensor& input, const Tensor& target,                 \
          const Tensor& weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean))                     \
  /* Its gradient, into a zeroed contiguous grad_input of the input's layout: grad_input[b, t, i] = -w * g[e] per      \
     element, or w * -(mean ? g / total_weight : g) from the 0-dim g, for each counted element; the dtype's own        \
     arithmetic, as ATen's */                                                                                          \
  KERNEL(nll_loss_backward, void,                                                                                      \
         (const Tensor& grad_input, const Tensor& grad_output, const Tensor& target, const Tensor& weight,             \
          const Tensor& total_weight, int64_t inner, int64_t ignore_index, bool per_element, bool mean))               \
  /* ---- matrix products: for each batch index, out = alpha * (a @ b) + beta * out (+ bias along the last dim);       \
     a [B, M, K] and b [B, K, N] have has_gemm_layout (backend.h), out is a contiguous [B, M, N] holding the addend    \
     when beta != 0, bias undefined or contiguous [N] ---- */                                                          \
  KERNEL(gemm, void,                                                                                                   \
         (const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias))

// Each device's declarations, from the list.
#define EMBER_DECLARE_KERNEL(name, result, parameters) result name parameters;
namespace cpu {
EMBER_KERNELS(EMBER_DECLARE_KERNEL)
// Whether this CPU's oneDNN multiplies bf16 itself (AVX-512 and later); elsewhere a bf16 gemm is
// widened to float32 (matmul.cpp).
bool onednn_has_bf16();
}  // namespace cpu
namespace cuda {
EMBER_KERNELS(EMBER_DECLARE_KERNEL)
}  // namespace cuda
#undef EMBER_DECLARE_KERNEL

}  // namespace ember::kernels
