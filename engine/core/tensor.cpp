// Tensor's own methods: layout queries, element access, conversions, and the method forms of the
// ops (each a one-line forward to ops.h).
#include "tensor.h"

#include "cuda_backend.h"
#include "dispatch.h"
#include "inference_mode.h"
#include "kernels/backend.h"
#include "ops/internal.h"

namespace ember {

int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim())];
}
int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, "Dimension specified as ", d, " but tensor has no dimensions");
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
  Tensor cpu = device().is_cpu() ? *this : detach().to(kCPU);
  Tensor flat = internal::contiguous(internal::converted(cpu, dtype_of<T>()));
  const T* data = flat.data_ptr<T>();
  return std::vector<T>(data, data + flat.numel());
}

template <typename T>
T Tensor::item() const {
  EMBER_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  return to_vector<T>()[0];
}

#define EMBER_INSTANTIATE(T)                            \
  template std::vector<T> Tensor::to_vector<T>() const; \
  template T Tensor::item<T>() const;
EMBER_INSTANTIATE(float)
EMBER_INSTANTIATE(double)
EMBER_INSTANTIATE(int64_t)
EMBER_INSTANTIATE(bool)
EMBER_INSTANTIATE(BFloat16)
EMBER_INSTANTIATE(Float16)
#undef EMBER_INSTANTIATE

namespace {

using namespace autograd;  // the backward nodes

struct Clone : FunctionalOp {
  static constexpr const char* name = "aten::clone";
  static Tensor compute(const Tensor& self, MemoryFormat memory_format) {
    Tensor out = memory_format == MemoryFormat::Preserve
                     ? internal::new_empty_like(self, self.dtype())  // laid out like self, as in PyTorch
                     : internal::new_empty(self.sizes(), self.dtype(), self.device());
    if (self.device().is_cpu()) {
      kernels::on(kCPU).copy(out, self);
    } else if (self.is_contiguous() && out.is_contiguous()) {
      cuda::copy_bytes(out.raw_data(), self.raw_data(), self.numel() * self.element_size(),
                       cuda::CopyKind::DeviceToDevice);
    } else {
      // No strided CUDA copy kernel yet: pack through the host (slow, but correct).
      out = self.to(kCPU).to(self.device());
    }
    return out;
  }
  static CloneBackward0 save(const Tensor&, const Tensor&, MemoryFormat) { return {}; }
};

struct ToDtype : FunctionalOp {  // the engine casts the gradient back to the input's dtype
  static constexpr const char* name = "aten::to";
  static Tensor compute(const Tensor& self, DType dtype) { return internal::converted(self, dtype); }
  static ToCopyBackward0 save(const Tensor&, const Tensor&, DType) { return {}; }
};

struct ToDevice : FunctionalOp {  // the engine moves the gradient back to the input's device
  static constexpr const char* name = "aten::to";
  static Tensor compute(const Tensor& self, Device target) {
    if (self.device().is_cpu()) {  // host to device: pack on the host, then one copy
      Tensor packed = internal::contiguous(self);
      Tensor out = internal::new_empty(self.sizes(), self.dtype(), target);
      cuda::copy_bytes(out.raw_data(), packed.raw_data(), self.numel() * self.element_size(),
                       cuda::CopyKind::HostToDevice);
      return out;
    }
    if (target.is_cpu()) {  // device to host: bring over the span the view covers, then pack on the host
      int64_t span = self.numel() == 0 ? 0 : 1;
      for (int64_t d = 0; d < self.dim(); ++d) span += (self.size(d) - 1) * self.stride(d);
      auto host = std::make_shared<Storage>(span * self.element_size(), kCPU);
      if (span > 0)
        cuda::copy_bytes(host->data, self.raw_data(), span * self.element_size(), cuda::CopyKind::DeviceToHost);
      return internal::contiguous(
          Tensor(std::make_shared<TensorImpl>(host, self.sizes(), self.strides(), 0, self.dtype(),
                                              /*tracks_version=*/!InferenceMode::is_enabled())));
    }
    // between GPUs
    Tensor packed = self.contiguous();
    Tensor out = internal::new_empty(self.sizes(), self.dtype(), target);
    cuda::copy_bytes(out.raw_data(), packed.raw_data(), self.numel() * self.element_size(),
                     cuda::CopyKind::DeviceToDevice);
    return out;
  }
  static ToCopyBackward0 save(const Tensor&, const Tensor&, Device) { return {}; }
};

}  // namespace

Tensor Tensor::clone(MemoryFormat memory_format) const { return call<Clone>(*this, memory_format); }
Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(MemoryFormat::Contiguous); }

Tensor Tensor::to(DType target) const {
  if (target == dtype()) return *this;
  return call<ToDtype>(*this, target);
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  return call<ToDevice>(*this, target);
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

std::ostream& operator<<(std::ostream& out, const Tensor& t) { return out << t.str(); }

}  // namespace ember
