// The method and operator forms of the ops (`t.sum()`, `a + b`, `t[0]`), each a one-line forward
// to the function in ops.h; Python's reflected operators are spelled out where the order matters.
#include "api/ops.h"

namespace ember {

Tensor Tensor::operator[](int64_t index) const {
  if (dim() == 0) [[unlikely]]
    throw IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                     "convert a 0-dim tensor to a number");
  if (index < -size(0) || index >= size(0)) [[unlikely]]
    throw IndexError(str_cat("index ", index, " is out of bounds for dimension 0 with size ", size(0)));
  return select(0, index);
}

Tensor Tensor::sum() const { return ember::sum(*this); }
Tensor Tensor::sum(const Dims& dims, bool keepdim) const { return ember::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return ember::mean(*this); }
Tensor Tensor::mean(const Dims& dims, bool keepdim) const { return ember::mean(*this, dims, keepdim); }
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::norm(Scalar p) const { return ember::norm(*this, p); }
Tensor Tensor::eq(const Tensor& other) const { return ember::eq(*this, other); }
Tensor Tensor::eq(Scalar other) const { return ember::eq(*this, other); }
Tensor Tensor::expand_as(const Tensor& other) const { return expand(other.sizes()); }
Tensor Tensor::movedim(const Dims& source, const Dims& destination) const {
  return ember::movedim(*this, source, destination);
}
Tensor Tensor::moveaxis(const Dims& source, const Dims& destination) const {
  return ember::moveaxis(*this, source, destination);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return ember::swapaxes(*this, axis0, axis1); }
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const { return ember::swapdims(*this, dim0, dim1); }
Tensor Tensor::unflatten(int64_t dim, const Dims& sizes) const { return ember::unflatten(*this, dim, sizes); }
Tensor Tensor::broadcast_to(const Dims& size) const { return ember::broadcast_to(*this, size); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool keepdim) const { return ember::argmax(*this, d, keepdim); }
Tensor Tensor::pow(Scalar exponent) const { return ember::pow(*this, exponent); }
#define EMBER_UNARY_METHOD(name, ...) \
  Tensor Tensor::name() const { return ember::name(*this); }
#define EMBER_BINARY_METHOD(name) \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); }
EMBER_UNARY_OPS(EMBER_UNARY_METHOD)
EMBER_BINARY_OPS(EMBER_BINARY_METHOD)
#undef EMBER_UNARY_METHOD
#undef EMBER_BINARY_METHOD
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, min, max);
}
Tensor Tensor::clamp_min(Scalar min) const { return ember::clamp_min(*this, min); }
Tensor Tensor::clamp_max(Scalar max) const { return ember::clamp_max(*this, max); }
Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, Scalar value) const {
  return ember::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, Scalar value) const {
  return ember::addcdiv(*this, t1, t2, value);
}
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }
Tensor Tensor::mm(const Tensor& other) const { return ember::mm(*this, other); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, Scalar b) { return add(a, b); }
Tensor operator-(const Tensor& a, Scalar b) { return sub(a, b); }
Tensor operator*(const Tensor& a, Scalar b) { return mul(a, b); }
Tensor operator/(const Tensor& a, Scalar b) { return div(a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return add(b, a); }
// libtorch's number - tensor and number / tensor: a tensor like b filled with the number, then the
// in-place op (SubBackward0, DivBackward0), so the result has b's dtype (TensorOperators.h).
Tensor operator-(Scalar a, const Tensor& b) { return empty_like(b).fill_(a).sub_(b); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(Scalar a, const Tensor& b) { return empty_like(b).fill_(a).div_(b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, Scalar b) { return ne(a, b); }
Tensor operator<(const Tensor& a, Scalar b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, Scalar b) { return le(a, b); }
Tensor operator>(const Tensor& a, Scalar b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, Scalar b) { return ge(a, b); }
// A number on the left is Python's reflected comparison: 0 < t is t > 0.
Tensor operator==(Scalar a, const Tensor& b) { return eq(b, a); }
Tensor operator!=(Scalar a, const Tensor& b) { return ne(b, a); }
Tensor operator<(Scalar a, const Tensor& b) { return gt(b, a); }
Tensor operator<=(Scalar a, const Tensor& b) { return ge(b, a); }
Tensor operator>(Scalar a, const Tensor& b) { return lt(b, a); }
Tensor operator>=(Scalar a, const Tensor& b) { return le(b, a); }

}  // namespace ember
