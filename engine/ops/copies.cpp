// The copy ops: clone, to(dtype), to(device) and copy_, each an op of its own with its node, as in
// PyTorch, and the reads a tensor's values take to leave the engine (to_vector, item). Every copy
// runs the device's copy kernel, which converts dtypes and follows any strides; between devices
// the bytes cross once, packed on the host.
#include "api/new_tensors.h"
#include "core/allocator.h"
#include "core/inference_mode.h"
#include "core/memory_layout.h"
#include "core/memory_overlap.h"
#include "core/size_arithmetic.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "profiler/steps.h"
#include "shape_rules.h"

namespace ember {

namespace {

using namespace autograd;  // the backward nodes

// ATen's clone, step by step as a profile shows it: a tensor laid out like self (empty_strided with
// self's strides when it is non-overlapping and dense, else empty_like), then copy_.
struct Clone : FunctionalOp {
  static constexpr const char* name = "aten::clone";
  static constexpr bool work_in_steps = true;
  static Tensor compute(const Tensor& self, MemoryFormat memory_format) {
    Tensor out = memory_format == MemoryFormat::Preserve && is_non_overlapping_and_dense({self.sizes(), self.strides()})
                     ? internal::recorded_empty_strided(self.sizes(), self.strides(), self.dtype(), self.device())
                     : internal::recorded_empty_like(self, memory_format);
    profiler::OpEvent<profiler::steps::Copy> copy(out, self, false);  // copy_(self, src, non_blocking)
    kernels::on(self.device()).copy(out, self);
    return out;
  }
  static CloneBackward0 save(const Tensor&, const Tensor&, MemoryFormat) { return {}; }
  static int kernel_writes(const Tensor&, MemoryFormat) { return 1; }  // copy_ (record.h's Note)
};

struct Copy : InPlaceOp {
  static constexpr const char* name = "aten::copy_";
  static constexpr bool rules_need_floating_self = true;
  static void compute(const Tensor& self, const Tensor& src) {
    if (self.is_same(src)) return;  // PyTorch returns before any check: x.copy_(x) even when x is expanded
    if (src.device() == self.device()) internal::check_writable(self, src);
    const Dims shape = broadcast_shapes(self.sizes(), src.sizes());
    EMBER_CHECK(shape == self.sizes(), "output with shape ", to_string(self.sizes()),
                " doesn't match the broadcast shape ", to_string(shape));
    const Tensor source = src.device() == self.device() ? src : src.to(self.device());
    kernels::on(self.device()).copy(self, internal::broadcast_to(source, self.sizes()));
  }
  static CopyBackwards save(const Tensor&, const Tensor&) { return {}; }
};

struct ToDtype : FunctionalOp {  // the engine casts the gradient back to the input's dtype
  static constexpr const char* name = "aten::to";
  static Tensor compute(const Tensor& self, DType dtype) { return internal::converted(self, dtype); }
  static ToCopyBackward0 save(const Tensor&, const Tensor&, DType) { return {}; }
  static int kernel_writes(const Tensor&, DType) { return 1; }  // _to_copy's copy_ (record.h's Note)
};

struct ToDevice : FunctionalOp {  // the engine moves the gradient back to the input's device
  static constexpr const char* name = "aten::to";
  static Tensor compute(const Tensor& self, Device target) {
    using cuda::CopyKind;
    if (self.device().is_cpu()) {  // host to device: pack on the host, then one copy
      Tensor packed = internal::contiguous(self);
      Tensor out = internal::new_empty(self.sizes(), self.dtype(), target);
      copy_bytes(target, out.raw_data(), packed.raw_data(), self.numel() * self.element_size(), CopyKind::HostToDevice);
      return out;
    }
    if (target.is_cpu()) {  // device to host: bring over the span the view covers, then pack on the host
      const int64_t span_bytes = storage_nbytes(self.sizes(), self.strides(), self.element_size());
      auto host = make_recycled<Storage>(span_bytes, kCPU);
      if (span_bytes > 0) copy_bytes(self.device(), host->data, self.raw_data(), span_bytes, CopyKind::DeviceToHost);
      return internal::contiguous(Tensor(make_recycled<TensorImpl>(host, self.sizes(), self.strides(), 0, self.dtype(),
                                                                   /*tracks_version=*/!InferenceMode::is_enabled())));
    }
    if (target.type != self.device().type) return compute(compute(self, kCPU), target);  // through the host
    // between devices of one kind
    Tensor packed = self.contiguous();
    Tensor out = internal::new_empty(self.sizes(), self.dtype(), target);
    copy_bytes(target, out.raw_data(), packed.raw_data(), self.numel() * self.element_size(), CopyKind::DeviceToDevice);
    return out;
  }
  static ToCopyBackward0 save(const Tensor&, const Tensor&, Device) { return {}; }
};

// A composite of clone, as ATen's: a profile shows aten::contiguous around aten::clone. A tensor
// already contiguous is returned before any dispatch, so it records nothing, as in PyTorch.
struct Contiguous : CompositeOp {
  static constexpr const char* name = "aten::contiguous";
  static Tensor compute(const Tensor& self, MemoryFormat memory_format) { return self.clone(memory_format); }
};

}  // namespace

Tensor Tensor::clone(MemoryFormat memory_format) const { return call<Clone>(*this, memory_format); }
Tensor Tensor::contiguous() const {
  return is_contiguous() ? *this : call<Contiguous>(*this, MemoryFormat::Contiguous);
}
bool Tensor::is_contiguous(MemoryFormat memory_format) const {
  if (memory_format != MemoryFormat::ChannelsLast) return is_contiguous();
  if (dim() != 4) return false;
  const Dims expected = channels_last_strides(sizes());
  for (int64_t d = 0; d < 4; ++d)
    if (size(d) != 1 && stride(d) != expected[d]) return false;
  return true;
}
Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  return is_contiguous(memory_format) ? *this : call<Contiguous>(*this, memory_format);
}

void internal::copy_into_new_tensor(const Tensor& fresh, const Tensor& src) { call_on_new_tensor<Copy>(fresh, src); }
Tensor& Tensor::copy_(const Tensor& src) {
  call<Copy>(*this, src);
  return *this;
}

Tensor Tensor::to(DType target) const {
  if (target == dtype()) return *this;
  return call<ToDtype>(*this, target);
}

Tensor Tensor::to(Device target) const {
  if (target == device()) return *this;
  return call<ToDevice>(*this, target);
}

Tensor Tensor::cpu() const { return to(kCPU); }
Tensor Tensor::cuda() const { return to(cuda_device(0)); }

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

Scalar Tensor::item() const {
  if (is_floating_point()) return item<double>();
  if (dtype() == kBool) return item<bool>();
  return item<int64_t>();
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
EMBER_INSTANTIATE(uint8_t)
EMBER_INSTANTIATE(int8_t)
EMBER_INSTANTIATE(int16_t)
EMBER_INSTANTIATE(int32_t)
#undef EMBER_INSTANTIATE

}  // namespace ember
