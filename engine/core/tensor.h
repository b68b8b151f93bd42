// Tensor: the handle users hold. It is a shared pointer to a TensorImpl, so copying a Tensor is
// cheap and two copies are the same tensor (like Python names bound to one torch.Tensor).
// Methods are thin forwards to the free functions in ops.h, where each op's path is written out.
#pragma once
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device.h"
#include "dims.h"
#include "dtype.h"
#include "low_precision.h"
#include "op_list.h"
#include "removable_handle.h"
#include "scalar.h"
#include "storage_handle.h"
#include "tensor_accessor.h"
#include "tensor_impl.h"
#include "tensor_index.h"

namespace ember {

namespace autograd {
struct Node;
}

// The C++ type stored for each dtype (float for kFloat32, BFloat16 for kBFloat16, ...).
template <typename T>
constexpr DType dtype_of();
// clang-format off
template <> constexpr DType dtype_of<float>() { return kFloat32; }
template <> constexpr DType dtype_of<double>() { return kFloat64; }
template <> constexpr DType dtype_of<BFloat16>() { return kBFloat16; }
template <> constexpr DType dtype_of<Float16>() { return kFloat16; }
template <> constexpr DType dtype_of<int64_t>() { return kInt64; }
template <> constexpr DType dtype_of<bool>() { return kBool; }
template <> constexpr DType dtype_of<uint8_t>() { return kUInt8; }
template <> constexpr DType dtype_of<int8_t>() { return kInt8; }
template <> constexpr DType dtype_of<int16_t>() { return kInt16; }
template <> constexpr DType dtype_of<int32_t>() { return kInt32; }
// clang-format on

// Options for factories: zeros({2, 3}, kFloat64), ones({4}, Options(kFloat32).requires_grad()).
// The layout a copy gets (torch.memory_format): Preserve keeps the source's (permuted) layout,
// Contiguous is row-major, ChannelsLast (4-d only) keeps each pixel's channels side by side.
enum class MemoryFormat { Preserve, Contiguous, ChannelsLast };

// libtorch's torch::kStrided: ember's only layout, accepted by Options::layout for its spelling
// (libtorch's type is c10::Layout; ember's Layout is memory_layout.h's sizes and strides).
enum class TensorLayout { Strided };
inline constexpr TensorLayout kStrided = TensorLayout::Strided;

struct Options {
  DType dtype_ = get_default_dtype();
  bool has_dtype = false;  // false: the factory picks (the default dtype, or int64 for integer arange, ...)
  Device device_ = kCPU;
  bool has_device = false;  // false: kCPU, or for a *_like factory the tensor's device
  bool requires_grad_ = false;

  Options() = default;
  Options(DType d) : dtype_(d), has_dtype(true) {}
  Options(Device d) : device_(d), has_device(true) {}
  Options& dtype(DType d) {
    dtype_ = d;
    has_dtype = true;
    return *this;
  }
  Options& device(Device d) {
    device_ = d;
    has_device = true;
    return *this;
  }
  Options& requires_grad(bool r = true) {
    requires_grad_ = r;
    return *this;
  }
  Options& layout(TensorLayout) { return *this; }
};

// libtorch's names: TensorOptions, and the helpers that start a chain of options,
// ones(5, dtype(kFloat64).requires_grad(true)).
using TensorOptions = Options;
inline Options dtype(DType d) { return Options(d); }
inline Options device(Device d) { return Options(d); }
inline Options requires_grad(bool r = true) { return Options().requires_grad(r); }

class Tensor {
 public:
  Tensor() = default;  // an undefined tensor (like torch's None where a tensor is optional)
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ---- layout ----
  const Dims& sizes() const { return checked().sizes; }
  const Dims& strides() const { return checked().strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return checked().sizes.size(); }
  int64_t numel() const { return checked().numel; }
  DType dtype() const { return checked().dtype; }
  DType scalar_type() const { return dtype(); }  // libtorch's name for it
  Device device() const { return checked().device(); }
  int64_t storage_offset() const { return checked().storage_offset; }
  int64_t element_size() const { return ember::element_size(dtype()); }
  bool is_contiguous() const { return checked().is_contiguous; }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  // libtorch's spellings: "CPUFloatType", and the options another factory needs for a tensor like
  // this one (its dtype and device).
  std::string toString() const;
  Options options() const { return Options(dtype()).device(device()); }

  // ---- data access ----
  // Typed pointer to element 0; PyTorch's check: "expected scalar type Float but found Double".
  template <typename T>
  T* data_ptr() const {
    check_dtype(dtype_of<T>());
    return reinterpret_cast<T*>(checked().data());
  }
  void* raw_data() const { return checked().data(); }
  template <typename T>
  T item() const;  // one element, converted to T
  // The one element as a Scalar, as libtorch's item(): a double for floating dtypes, an integer
  // for int64, a bool for bool; `loss.item().to<float>()`, or printed with `<<`.
  Scalar item() const;
  template <typename T>
  std::vector<T> to_vector() const;  // all elements in row-major order, converted to T
  // libtorch's accessor<float, 2>(): dtype and dimensions checked once, then a[i][j] (CPU only).
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor(dtype_of<T>(), N);
    return TensorAccessor<T, N>(reinterpret_cast<T*>(checked().data()), sizes().data(), strides().data());
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;  // it would point into a tensor about to be freed

  // ---- autograd ----
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor grad() const;
  Tensor& mutable_grad() const;  // the leaf's .grad slot (for optimizers and zero_grad)
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  // libtorch's backward: autograd::backward({*this}, {gradient}, retain_graph, create_graph, inputs).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                const std::vector<Tensor>& inputs = {}) const;
  // PyTorch's register_hook: in backward, `hook` sees this tensor's gradient and may return a
  // replacement (an undefined Tensor keeps it); on a leaf it runs before .grad is accumulated.
  RemovableHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;
  // Makes backward store this non-leaf's gradient in its .grad (a leaf's is stored anyway).
  void retain_grad() const;
  bool retains_grad() const;
  Tensor detach() const;
  // Makes this tensor a leaf that does not require grad, in place (not for a view).
  Tensor& detach_();
  // Replaces what this tensor holds (storage, layout, dtype) while it stays the same tensor, with
  // the same autograd identity: PyTorch's `param.data = new_data`, which Module::to uses so that
  // an optimizer holding the parameter keeps working. The tensor keeps its own version counter.
  void set_data(const Tensor& new_data) const;
  bool is_inference() const { return checked().is_inference(); }
  uint32_t _version() const { return checked().version_counter->current(); }
  // PyTorch's `t.data`: the same bytes and layout, no history, requires_grad false, and a version
  // counter of its own, so an in-place change through it escapes autograd's saved-tensor check
  // (the classic way to sneak past autograd; detach() shares the counter and is caught).
  Tensor data() const;

  // ---- aliasing ----
  // PyTorch's t._is_view() and t._base: whether a view op made this tensor, and the tensor its
  // chain of views started from (undefined when not a view). Views of inference tensors are not
  // views, as in PyTorch.
  bool _is_view() const;
  Tensor _base() const;
  // libtorch's is_alias_of: whether the two share storage (views, detach() and data() do).
  bool is_alias_of(const Tensor& other) const { return checked().storage == other.checked().storage; }
  // libtorch's t.storage(): the bytes this tensor and its views share (storage_handle.h).
  StorageHandle storage() const { return StorageHandle(checked().storage); }

  // ---- views (share storage and version counter) ----
  Tensor view(const Dims& sizes) const;
  // The same bytes read as another dtype (no gradient, as PyTorch's). A template so that a braced
  // list still means sizes: view({}) is the 0-dim view, not view(DType{}).
  template <std::same_as<DType> Dtype>
  Tensor view(Dtype dtype) const {
    return view_dtype(dtype);
  }
  Tensor view_dtype(DType dtype) const;
  Tensor reshape(const Dims& sizes) const;
  Tensor operator[](int64_t index) const;  // t[i]: select(0, i) with Python's indexing message
  // libtorch's t.index({Slice(), 1}) and t.index_put_({0, Slice(0, 2)}, v): ops/indexing.h's.
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, const Tensor& value);
  Tensor& index_put_(const std::vector<indexing::TensorIndex>& indices, Scalar value);
  // t[2][0] = -1: libtorch fills the element a temporary view names (only a temporary: a named
  // tensor is rebound by `=`, as any C++ value).
  Tensor& operator=(Scalar value) && { return fill_(value); }
  Tensor select(int64_t dim, int64_t index) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  // start given as a 0-dim integer tensor ("start must be an 0-dim integral Tensor.").
  Tensor narrow(int64_t dim, const Tensor& start, int64_t length) const;
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(const Dims& dims) const;
  Tensor expand(const Dims& sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor view_as(const Tensor& other) const;  // view(other.sizes())
  // Every window of `size` elements along `dimension`, `step` apart, as a new last dim (unfold.cpp).
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  Tensor expand_as(const Tensor& other) const;  // expand(other.sizes())
  // The views written with other views (ops.h, composite_views.cpp); T() reverses every dim, mT()
  // transposes the last two.
  Tensor movedim(const Dims& source, const Dims& destination) const;
  Tensor moveaxis(const Dims& source, const Dims& destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor T() const;
  Tensor mT() const;
  Tensor unflatten(int64_t dim, const Dims& sizes) const;
  Tensor broadcast_to(const Dims& size) const;
  Tensor reshape_as(const Tensor& other) const;
  // In-place views: the tensor's own layout changes (a version bump, a node, as in-place ops).
  Tensor& transpose_(int64_t dim0, int64_t dim1);
  Tensor& t_();
  Tensor& squeeze_();
  Tensor& squeeze_(int64_t dim);
  Tensor& unsqueeze_(int64_t dim);
  Tensor& swapdims_(int64_t dim0, int64_t dim1);
  Tensor& swapaxes_(int64_t dim0, int64_t dim1);
  Tensor& as_strided_(const Dims& sizes, const Dims& strides, int64_t storage_offset = 0);
  Tensor contiguous() const;  // itself when contiguous, else clone(MemoryFormat::Contiguous)
  // Itself when already laid out so, else a copy in that layout (to(memory_format=...)).
  Tensor contiguous(MemoryFormat memory_format) const;
  bool is_contiguous(MemoryFormat memory_format) const;
  Tensor clone(MemoryFormat memory_format = MemoryFormat::Preserve) const;
  // Gives the tensor `sizes` in place (contiguous strides unless the sizes are unchanged), growing
  // its storage when it is too small; the version counter is not bumped (as in PyTorch).
  Tensor& resize_(const Dims& sizes);
  Tensor& resize_as_(const Tensor& other);  // resize_(other.sizes())
  // In place, this tensor becomes a tensor over another's storage (set_storage.cpp): the source
  // tensor's, with its layout; a storage's, from `storage_offset` with `sizes` and `strides`
  // (contiguous when none are given), growing it when they reach past its end; or none (set_():
  // an empty storage). The tensor keeps its own version counter, and set_ counts as a write to it.
  Tensor& set_(const Tensor& source);
  Tensor& set_(const StorageHandle& source);
  Tensor& set_(const StorageHandle& source, int64_t storage_offset, const Dims& sizes, const Dims& strides = {});
  Tensor& set_();

  // ---- conversion ----
  Tensor to(DType dtype) const;
  Tensor to(Device device) const;
  Tensor cpu() const;   // to(kCPU)
  Tensor cuda() const;  // to cuda:0

  // ---- math (forwards to ops.h) ----
  Tensor sum() const;
  Tensor sum(const Dims& dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(const Dims& dims, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor all() const;  // whether every element is nonzero: a 0-dim bool tensor
  Tensor norm(Scalar p = 2) const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(Scalar other) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor pow(Scalar exponent) const;
  // The method of each op of core/op_list.h: t.exp(), t.maximum(other), ...
#define EMBER_UNARY_METHOD(name, ...) Tensor name() const;
#define EMBER_BINARY_METHOD(name) Tensor name(const Tensor& other) const;
  EMBER_UNARY_OPS(EMBER_UNARY_METHOD)
  EMBER_BINARY_OPS(EMBER_BINARY_METHOD)
#undef EMBER_UNARY_METHOD
#undef EMBER_BINARY_METHOD
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(Scalar min) const;
  Tensor clamp_max(Scalar max) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;

  // ---- in-place (bump the version counter) ----
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);  // += value * t1 * t2
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);  // += value * t1 / t2
  Tensor& exp_();
  Tensor& relu_();
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  Tensor& copy_(const Tensor& src);
  // The samplers in place (api/random.h), from the default generator as libtorch's methods are.
  Tensor& uniform_(double from = 0, double to = 1);
  Tensor& normal_(double mean = 0, double std = 1);
  Tensor& random_(int64_t from, int64_t to);
  Tensor& random_(int64_t to);
  Tensor& random_();
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator+=(Scalar other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator-=(Scalar other) { return sub_(other); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator*=(Scalar other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator/=(Scalar other) { return div_(other); }

  // Python's text, repr(t): "tensor([[1., 2.],\n        [3., 4.]])" (operator<< prints libtorch's).
  std::string str() const;
  // Python's repr of t.tolist(): "[100.0, 101.0, 102.0]".
  std::string tolist_str() const;

 private:
  void check_dtype(DType expected) const;
  void check_accessor(DType expected, size_t dims) const;
  // The impl, or an error for an undefined tensor (one never assigned, or a .grad() before backward).
  const TensorImpl& checked() const {
    if (!impl_) [[unlikely]]
      throw_undefined();
    return *impl_;
  }
  [[noreturn]] static void throw_undefined();
  std::shared_ptr<TensorImpl> impl_;
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
// t > 0 and 0 < t: comparisons with a number, element by element (PyTorch's t.__gt__(0)).
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, Scalar b);
Tensor operator==(Scalar a, const Tensor& b);
Tensor operator!=(Scalar a, const Tensor& b);
Tensor operator<(Scalar a, const Tensor& b);
Tensor operator<=(Scalar a, const Tensor& b);
Tensor operator>(Scalar a, const Tensor& b);
Tensor operator>=(Scalar a, const Tensor& b);
// libtorch's printing, a table of values and a line "[ CPUFloatType{2,3} ]" (Python's repr is str()).
std::ostream& operator<<(std::ostream& out, const Tensor& t);

}  // namespace ember
