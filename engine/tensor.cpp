// Tensor's own methods: layout queries, element access, conversions, and the method forms of the
// ops (each a one-line forward to ops.h).
#include "tensor.h"

#include "autograd/record.h"
#include "cuda_backend.h"
#include "inference_mode.h"
#include "internal.h"
#include "kernels/copy.h"
#include "kernels/visit_dtype.h"
#include "ops.h"

namespace ember {

using autograd::Op;

int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, "dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim())];
}
int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, "dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim())];
}

void Tensor::throw_undefined() {
  throw Error("ember: this Tensor is undefined (default-constructed, or the .grad() of a tensor before backward)");
}

void Tensor::check_dtype(DType expected) const {
  EMBER_CHECK(dtype() == expected, "expected scalar type ", scalar_type_name(expected), " but found ",
              scalar_type_name(dtype()));
}

Tensor Tensor::operator[](int64_t index) const {
  EMBER_CHECK(dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number");
  EMBER_CHECK(index >= -size(0) && index < size(0), "index ", index, " is out of bounds for dimension 0 with size ",
              size(0));
  return select(0, index);
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  Tensor cpu = device().is_cpu() ? internal::alias(*this) : internal::alias(*this).to(kCPU);  // no graph
  Tensor flat = internal::contiguous(internal::converted(cpu, dtype_of<T>()));
  const T* data = flat.data_ptr<T>();
  return std::vector<T>(data, data + flat.numel());
}

template <typename T>
T Tensor::item() const {
  EMBER_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  return to_vector<T>()[0];
}

#define EMBER_INSTANTIATE(T) \
  template std::vector<T> Tensor::to_vector<T>() const; \
  template T Tensor::item<T>() const;
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(bool)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(Float16)
#undef EMBER_INSTANTIATE

Tensor Tensor::clone() const {
  Tensor out;
  if (device().is_cpu()) {
    out = internal::new_empty(sizes(), dtype(), device());
    kernels::copy(out, *this);
  } else if (is_contiguous()) {
    out = internal::new_empty(sizes(), dtype(), device());
    cuda::copy_bytes(out.raw_data(), raw_data(), numel() * element_size(), cuda::CopyKind::DeviceToDevice);
  } else {
    // No strided CUDA copy kernel yet: pack through the host (slow, but correct).
    out = internal::alias(*this).to(kCPU).to(device());
  }
  if (autograd::needs_grad({this})) autograd::set_history(out, autograd::make_node(Op::Clone, {this}));
  return out;
}

Tensor Tensor::to(DType target) const {
  if (target == dtype()) return *this;
  internal::check_cpu(*this, "to");
  Tensor out = internal::converted(*this, target);
  if (autograd::needs_grad({this})) {
    autograd::set_history(out, autograd::make_node(Op::ToDtype, {this}));  // the engine casts the gradient back
  }
  return out;
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  Tensor out;
  if (device().is_cpu()) {  // host to device: pack on the host, then one copy
    Tensor packed = internal::contiguous(*this);
    out = internal::new_empty(sizes(), dtype(), target);
    cuda::copy_bytes(out.raw_data(), packed.raw_data(), numel() * element_size(), cuda::CopyKind::HostToDevice);
  } else if (target.is_cpu()) {  // device to host: bring over the span the view covers, then pack on the host
    int64_t span = numel() == 0 ? 0 : 1;
    for (int64_t d = 0; d < dim(); ++d) span += (size(d) - 1) * stride(d);
    auto host = std::make_shared<Storage>(span * element_size(), kCPU, !InferenceMode::is_enabled());
    if (span > 0) cuda::copy_bytes(host->data, raw_data(), span * element_size(), cuda::CopyKind::DeviceToHost);
    out = internal::contiguous(Tensor(std::make_shared<TensorImpl>(host, sizes(), strides(), 0, dtype())));
  } else {  // between GPUs
    Tensor packed = clone().detach();
    out = internal::new_empty(sizes(), dtype(), target);
    cuda::copy_bytes(out.raw_data(), packed.raw_data(), numel() * element_size(), cuda::CopyKind::DeviceToDevice);
  }
  if (autograd::needs_grad({this})) {
    auto node = autograd::make_node(Op::ToDevice, {this});
    node->args.device = device();
    autograd::set_history(out, node);
  }
  return out;
}

// ---- method forms of the ops ----
Tensor Tensor::sum() const { return ember::sum(*this); }
Tensor Tensor::sum(const Dims& dims, bool keepdim) const { return ember::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return ember::mean(*this); }
Tensor Tensor::mean(const Dims& dims, bool keepdim) const { return ember::mean(*this, dims, keepdim); }
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
Tensor Tensor::argmax(std::optional<int64_t> d, bool keepdim) const { return ember::argmax(*this, d, keepdim); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor Tensor::pow(Scalar exponent) const { return ember::pow(*this, exponent); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor Tensor::neg() const { return ember::neg(*this); }
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
Tensor operator-(Scalar a, const Tensor& b) { return rsub(b, a); }
Tensor operator*(Scalar a, const Tensor& b) { return mul(b, a); }
Tensor operator/(Scalar a, const Tensor& b) { return mul(pow(b, -1), a); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << t.str(); }

}  // namespace ember
