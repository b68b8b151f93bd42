// The public ops, as free functions named like PyTorch's (torch.mm, torch.softmax, ...).
// Each is one line, `call<Op>(...)` (dispatch.h), beside the op's struct in its family's .cpp:
// the struct checks arguments (PyTorch's error texts), computes with a kernel from kernels/ and
// names the backward node (autograd/derivatives.h) the dispatcher records.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/tensor.h"

namespace ember {

// ---- factories (factories.cpp) ----
Tensor empty(const Dims& sizes, Options options = {});
// An uninitialised tensor with the given strides (which may leave gaps or overlap).
Tensor empty_strided(const Dims& sizes, const Dims& strides, Options options = {});
Tensor zeros(const Dims& sizes, Options options = {});
Tensor ones(const Dims& sizes, Options options = {});
Tensor full(const Dims& sizes, Scalar value, Options options = {});
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor empty_like(const Tensor& t);
// The same with options: those given replace t's dtype and device (requires_grad too).
Tensor zeros_like(const Tensor& t, Options options);
Tensor ones_like(const Tensor& t, Options options);
Tensor empty_like(const Tensor& t, Options options);
Tensor full_like(const Tensor& t, Scalar value, Options options = {});
Tensor arange(Scalar end, Options options = {});
Tensor arange(Scalar start, Scalar end, Scalar step = 1, Options options = {});
Tensor arange(Scalar start, Scalar end, Options options);  // libtorch's arange(1, 5, kFloat32)
Tensor eye(int64_t n, Options options = {});
Tensor eye(int64_t n, int64_t m, Options options = {});
// A tensor holding `values` with the given sizes (default: 1-D). dtype from T unless given.
template <typename T>
Tensor from_vector(const std::vector<T>& values, const Dims& sizes, Options options = {});
Tensor from_vector(const std::vector<bool>& values, const Dims& sizes, Options options = {});
Tensor tensor(const std::vector<double>& values, Options options = {});
Tensor tensor(const std::vector<double>& values, const Dims& sizes, Options options = {});
Tensor scalar_tensor(Scalar value, Options options = {});
// A CPU tensor over bytes someone else owns (libtorch's from_blob; torch.from_numpy uses it): no
// copy, strides in elements, and release(data) called when the last tensor on them is gone.
Tensor from_blob(void* data, const Dims& sizes, const Dims& strides, std::function<void(void*)> release,
                 Options options = {});
// libtorch's short forms: row-major strides, and nothing to release (the caller keeps the bytes
// alive) or deleter(data) when the last tensor on them is gone.
Tensor from_blob(void* data, const Dims& sizes, Options options = {});
Tensor from_blob(void* data, const Dims& sizes, std::function<void(void*)> deleter, Options options = {});

// ---- views (views.cpp) ----
Tensor as_strided(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset);
// as_strided recorded as AsStridedBackward0: for the formulas that address a view and its base in
// storage coordinates (copy_slices.cpp) when they run under create_graph. Users have the named views.
Tensor as_strided_recorded(const Tensor& self, const Dims& sizes, const Dims& strides, int64_t storage_offset);
// What reshape-with-copy and matmul's folding return: an alias of `self` recorded as
// UnsafeViewBackward0, which autograd does not treat as a view (PyTorch's _unsafe_view).
Tensor unsafe_view(const Tensor& self, const Dims& sizes);
// PyTorch's self.squeeze_(dim) below autograd, as matmul's out= ends: the same tensor with `dim`
// dropped when its size is 1. A change of sizes only, yet an in-place op, so it counts as a write.
void squeeze_in_place(Tensor& self, int64_t dim);

// ---- element-wise (pointwise.cpp) ----
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, Scalar b);  // libtorch's Scalar overloads: AddBackward1 (number_ops.cpp)
Tensor sub(const Tensor& a, Scalar b);
Tensor mul(const Tensor& a, Scalar b);
Tensor div(const Tensor& a, Scalar b);
Tensor rsub(const Tensor& a, Scalar b);          // b - a
Tensor floor_divide(const Tensor& a, Scalar b);  // RemainderBackward0; floor_divide records NotImplemented
Tensor remainder(const Tensor& a, Scalar b);
// Python's `x + 2`: the number is a 0-dim "wrapped number" input, as PyTorch's argument parser passes
// it, so the node is the tensor-tensor op's (AddBackward0, MulBackward0 saving the number).
namespace wrapped_number {
Tensor add(const Tensor& a, Scalar b);
Tensor sub(const Tensor& a, Scalar b);
Tensor mul(const Tensor& a, Scalar b);
Tensor div(const Tensor& a, Scalar b);
Tensor& add_(Tensor& self, Scalar other);
Tensor& sub_(Tensor& self, Scalar other);
Tensor& mul_(Tensor& self, Scalar other);
Tensor& div_(Tensor& self, Scalar other);
}  // namespace wrapped_number
// The unary and binary ops of core/op_list.h: exp(self), ..., atan2(self, other), maximum, minimum.
#define EMBER_DECLARE_UNARY(name, ...) Tensor name(const Tensor& self);
#define EMBER_DECLARE_BINARY(name) Tensor name(const Tensor& self, const Tensor& other);
EMBER_UNARY_OPS(EMBER_DECLARE_UNARY)
EMBER_BINARY_OPS(EMBER_DECLARE_BINARY)
#undef EMBER_DECLARE_UNARY
#undef EMBER_DECLARE_BINARY
Tensor pow(const Tensor& a, Scalar exponent);
// torch.result_type: the dtype `a op b` computes in (promote_types is in core/dtype.h).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, Scalar b);
Tensor ne(const Tensor& a, Scalar b);
Tensor lt(const Tensor& a, Scalar b);
Tensor le(const Tensor& a, Scalar b);
Tensor gt(const Tensor& a, Scalar b);
Tensor ge(const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold);  // relu's gradient

// ---- bounds (clamp.cpp) ----
// Each element raised to min and lowered to max (either may be left out, not both): min(max(a, min),
// max), so min > max gives max and NaN stays NaN; a NaN bound gives NaN when both are given.
Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& a, Scalar min);
Tensor clamp_max(const Tensor& a, Scalar max);

// ---- fused multiply-add and -divide (addcmul.cpp) ----
// self + value * tensor1 * tensor2 and self + value * tensor1 / tensor2 in one pass, rounded as
// PyTorch's kernels round (what its optimizers' updates are written with).
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);

// ---- reductions (reduce.cpp) ----
Tensor sum(const Tensor& a);
Tensor sum(const Tensor& a, const Dims& dims, bool keepdim = false);
Tensor mean(const Tensor& a);
Tensor mean(const Tensor& a, const Dims& dims, bool keepdim = false);
// The variance (divided by N - 1 when unbiased, else N) and the mean over dims (all when none).
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, const std::optional<Dims>& dims = std::nullopt,
                                    bool unbiased = true, bool keepdim = false);
// Whether every (all) or any element is nonzero: a bool tensor, over dims (all when none).
Tensor all(const Tensor& a);
// The p-norm of all elements (torch.norm(t, p); p may be 0 or +-inf), composed of ops: its graph is
// theirs (no NormBackward1), and at an all-zero input the 2-norm's gradient is nan where PyTorch's is 0.
Tensor norm(const Tensor& a, Scalar p = 2);
Tensor all(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& a);
Tensor any(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& a);
Tensor min(const Tensor& a);
struct ValuesIndices {
  Tensor values;
  Tensor indices;
};
ValuesIndices max(const Tensor& a, int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& a, int64_t dim, bool keepdim = false);
// Index of the first maximum; over the flattened tensor when dim is not given.
Tensor argmax(const Tensor& a, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);

// ---- linear algebra (linalg.cpp; matmul and linear: matmul.cpp) ----
Tensor mm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// ---- resizing and out= variants (resize.cpp) ----
// torch.resize_as_(self, other): self.resize_(other.sizes()), in place.
Tensor& resize_as_(Tensor& self, const Tensor& other);
// torch.add(a, b, out=out) and its kind: the result written into `out`, which is resized (with
// PyTorch's warning unless it was empty) when its shape differs. Element-wise ops cast into out's
// dtype where the result type allows; products need out's dtype exactly. Refused when autograd
// would have to record.
Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& div_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& mm_out(Tensor& out, const Tensor& a, const Tensor& b);
Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b);

// ---- neural-network functions (nn_functional.cpp; the losses in losses.cpp) ----
Tensor softmax(const Tensor& a, int64_t dim);
Tensor log_softmax(const Tensor& a, int64_t dim);
Tensor layer_norm(const Tensor& input, const Dims& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
enum class Reduction { None, Mean, Sum };
// libtorch's spellings of the reductions (torch::kSum): NLLLossOptions().reduction(kSum).
inline constexpr Reduction kNone = Reduction::None, kMean = Reduction::Mean, kSum = Reduction::Sum;
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
// The class-index losses (losses.cpp), with libtorch's arguments: `weight` rescales each class (a
// [C] tensor of the input's dtype, or undefined), the mean divides by the targets' total weight, and
// targets equal to ignore_index count nowhere.
// nll_loss of log-probabilities [N, C] or [C] (libtorch's torch::nll_loss; NllLossBackward0).
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                Reduction reduction = Reduction::Mean, int64_t ignore_index = -100);
// nll_loss of [N, C, H, W] against targets [N, H, W] (torch::nll_loss2d; NllLoss2DBackward0).
Tensor nll_loss2d(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                  Reduction reduction = Reduction::Mean, int64_t ignore_index = -100);
// Any input [C], [N, C] or [N, C, d1, ...] against targets [], [N] or [N, d1, ...]: nll_loss or
// nll_loss2d, the others viewed as [N, C, 1, d1*...] (torch::nll_loss_nd, torch.nn.functional.nll_loss).
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                   Reduction reduction = Reduction::Mean, int64_t ignore_index = -100);
// Their gradients (the nodes' formulas): total_weight is the 0-dim total the forward pass divided by.
Tensor nll_loss_backward(const Tensor& grad_output, const Dims& self_sizes, const Tensor& target, const Tensor& weight,
                         Reduction reduction, int64_t ignore_index, const Tensor& total_weight);
Tensor nll_loss2d_backward(const Tensor& grad_output, const Dims& self_sizes, const Tensor& target,
                           const Tensor& weight, Reduction reduction, int64_t ignore_index, const Tensor& total_weight);
// nll_loss_nd(log_softmax(input, class dim), target, ...), with label smoothing when asked
// (libtorch's torch::cross_entropy_loss, torch.nn.functional.cross_entropy).
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                     Reduction reduction = Reduction::Mean, int64_t ignore_index = -100, double label_smoothing = 0.0);
Tensor dropout(const Tensor& input, double p, bool training);

// ---- joining (join.cpp) ----
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Pieces of self along dim, each a view (splits.cpp): one per index (unbind), of a size (split),
// of given sizes, or a number of them (chunk). The unsafe_ variants' pieces are not views to
// autograd, so they may be modified in place. diagonal is a view too.
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, const std::vector<int64_t>& split_sizes,
                                            int64_t dim = 0);
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);

// ---- views written with other views (composite_views.cpp) ----
// movedim (moveaxis, numpy's name): the dims at `source` moved to `destination`, the others kept
// in order; swapaxes/swapdims: transpose. Each a view, recorded as the view inside it.
Tensor movedim(const Tensor& self, const Dims& source, const Dims& destination);
Tensor moveaxis(const Tensor& self, const Dims& source, const Dims& destination);
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1);
// Dim `dim` viewed as `sizes` (one may be -1).
Tensor unflatten(const Tensor& self, int64_t dim, const Dims& sizes);
// expand(size), and the tensors expanded to the shape they broadcast to.
Tensor broadcast_to(const Tensor& self, const Dims& size);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// Slices of self along dim: `sections` pieces as equal as can be, or cut before each index, or
// either given by an int64 CPU tensor (0-dim: sections, 1-D: indices).
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const std::vector<int64_t>& indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim = 0);
// tensor_split along dim 1 (hsplit; 0 for a 1-D tensor), 0 (vsplit) and 2 (dsplit); sections
// must divide the dim.
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, const std::vector<int64_t>& indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, const std::vector<int64_t>& indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, const std::vector<int64_t>& indices);
// The tensor with at least n dims (sizes of 1 added), or itself when it has them.
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
std::vector<Tensor> atleast_1d(const std::vector<Tensor>& tensors);
std::vector<Tensor> atleast_2d(const std::vector<Tensor>& tensors);
std::vector<Tensor> atleast_3d(const std::vector<Tensor>& tensors);

// ---- a view, then a copy of it (view_copies.h; the views' files define them) ----
// torch.permute_copy and its kind: the view's values in storage of their own (clone's layout),
// not a view; the view's node under its copy's name (PermuteBackward0_copy), and detach_copy a
// NotImplemented node (PyTorch gives it no derivative).
Tensor expand_copy(const Tensor& self, const Dims& size, bool implicit = false);
Tensor permute_copy(const Tensor& self, const Dims& dims);
Tensor view_copy(const Tensor& self, const Dims& size);
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index);
Tensor slice_copy(const Tensor& self, int64_t dim = 0, int64_t start = 0, int64_t end = INT64_MAX, int64_t step = 1);
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor t_copy(const Tensor& self);
Tensor squeeze_copy(const Tensor& self);
Tensor squeeze_copy(const Tensor& self, int64_t dim);
Tensor unsqueeze_copy(const Tensor& self, int64_t dim);
Tensor as_strided_copy(const Tensor& self, const Dims& size, const Dims& stride, int64_t storage_offset = 0);
Tensor detach_copy(const Tensor& self);
Tensor alias_copy(const Tensor& self);
Tensor diagonal_copy(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim = 0);
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, const std::vector<int64_t>& split_sizes, int64_t dim = 0);
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
Tensor _reshape_alias_copy(const Tensor& self, const Dims& size, const Dims& stride);
// view(dtype)'s copy: no gradient, as the view has none. narrow_copy is ATen's own kernel, not a
// view then a copy (its profile shows only the empty_like it writes into), with no derivative.
Tensor view_copy(const Tensor& self, DType dtype);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);

// ---- comparison of whole tensors (compare.cpp) ----
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);
// Whether the one element is not zero: Python's bool(t) (at::is_nonzero).
bool is_nonzero(const Tensor& t);

// ---- threads ----
void set_num_threads(int n);
int get_num_threads();

}  // namespace ember
