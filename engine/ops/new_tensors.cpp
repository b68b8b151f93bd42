// Fresh tensors and kernel operands for ops (see new_tensors.h).
#include "api/new_tensors.h"

#include <cmath>

#include "core/inference_mode.h"
#include "core/size_arithmetic.h"
#include "kernels/backend.h"
#include "profiler/steps.h"

namespace ember::internal {

namespace {
// A tensor over fresh bytes: numel elements, which any dense layout of `sizes` needs.
Tensor new_dense(const Dims& sizes, const Dims& strides, DType dtype, Device device) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", to_string(sizes));
  const int64_t nbytes = storage_nbytes_contiguous(sizes, element_size(dtype));
  return Tensor(make_recycled<TensorImpl>(make_recycled<Storage>(nbytes, device), sizes, strides, 0, dtype,
                                          /*tracks_version=*/!InferenceMode::is_enabled()));
}
}  // namespace

Tensor new_empty(const Dims& sizes, DType dtype, Device device) {
  return new_dense(sizes, contiguous_strides(sizes), dtype, device);
}

Tensor new_empty_strided(const Dims& sizes, const Dims& strides, DType dtype, Device device) {
  EMBER_INTERNAL_ASSERT(is_non_overlapping_and_dense({sizes, strides}), "new_empty_strided takes dense strides");
  return new_dense(sizes, strides, dtype, device);
}

Tensor new_empty_with_strides(const Dims& sizes, const Dims& strides, DType dtype, Device device) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", to_string(sizes));
  for (int64_t s : strides) EMBER_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment");
  const int64_t nbytes = storage_nbytes(sizes, strides, element_size(dtype));
  return Tensor(make_recycled<TensorImpl>(make_recycled<Storage>(nbytes, device), sizes, strides, 0, dtype,
                                          /*tracks_version=*/!InferenceMode::is_enabled()));
}

Tensor new_empty_like(const Tensor& t, DType dtype) {
  return new_empty_strided(t.sizes(), preserved_strides({t.sizes(), t.strides()}), dtype, t.device());
}

Tensor alias(const Tensor& t) { return alias_with_layout(t, t.sizes(), t.strides(), t.storage_offset()); }

Tensor alias_with_layout(const Tensor& t, const Dims& sizes, const Dims& strides, int64_t offset) {
  return Tensor(make_recycled<TensorImpl>(*t.impl(), sizes, strides, offset, t.dtype()));
}

Tensor like(const Tensor& t, const Options& options, const std::function<Tensor(const Tensor&)>& make) {
  const DType dtype = options.has_dtype ? options.dtype_ : t.dtype();
  const Device device = options.has_device ? options.device_ : t.device();
  Tensor made = make(dtype == t.dtype() && device == t.device() ? t : new_empty(t.sizes(), dtype, device));
  return options.requires_grad_ ? made.requires_grad_() : made;
}

Tensor view_with_layout(const Tensor& t, const Dims& sizes, const Dims& strides, int64_t offset) {
  using profiler::steps::Unrecorded;
  profiler::OpEvent<profiler::steps::AsStrided> step(t, Unrecorded{}, Unrecorded{}, Unrecorded{});
  return alias_with_layout(t, sizes, strides, offset);
}

Tensor alias_with_new_version(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  return Tensor(make_recycled<TensorImpl>(impl.storage, impl.sizes, impl.strides, impl.storage_offset, impl.dtype,
                                          /*tracks_version=*/!impl.is_inference()));
}

Tensor broadcast_to(const Tensor& t, const Dims& sizes) {
  if (t.sizes() == sizes) return t;
  const int64_t lead = sizes.size() - t.dim();
  Dims strides = Dims::filled(sizes.size(), 0);
  for (int64_t d = 0; d < t.dim(); ++d) strides[lead + d] = t.size(d) == 1 && sizes[lead + d] != 1 ? 0 : t.stride(d);
  return alias_with_layout(t, sizes, strides, t.storage_offset());
}

Tensor converted(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = new_empty_like(t, dtype);
  kernels::on(t.device()).copy(out, t);
  return out;
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor out = new_empty(t.sizes(), t.dtype(), t.device());
  kernels::on(t.device()).copy(out, t);
  return out;
}

Tensor with_layout(const Tensor& t, DType dtype, const Dims& strides) {
  if (t.dtype() == dtype && t.strides() == strides) return t;
  Tensor out = new_empty_strided(t.sizes(), strides, dtype, t.device());
  kernels::on(t.device()).copy(out, t);
  return out;
}

namespace {
// c10's overflows<To>: a float must lie within [lowest, largest]; an integer too, except that
// unsigned types take negative integers down to -largest (two's complement wraps -1 to 255).
void check_integer_fits(Scalar value, double lowest, double largest, const char* type_name) {
  if (value.is_bool()) return;
  const double v = value.to_double();
  const double low = value.is_integral() && lowest == 0.0 ? -largest : lowest;
  EMBER_CHECK(v >= low && v <= largest, "value cannot be converted to type ", type_name, " without overflow");
}
}  // namespace

void check_fits(Scalar value, DType dtype) {
  const double v = value.to_double();
  double largest = 0;  // of the dtype; 0 where nothing can overflow
  const char* type_name = "";
  switch (dtype) {
    case DType::Int64: return check_integer_fits(value, -9.2233720368547758e18, 9.2233720368547758e18, "int64_t");
    case DType::Int32: return check_integer_fits(value, -2147483648.0, 2147483647.0, "int");
    case DType::Int16: return check_integer_fits(value, -32768.0, 32767.0, "int16_t");
    case DType::Int8: return check_integer_fits(value, -128.0, 127.0, "int8_t");
    case DType::UInt8: return check_integer_fits(value, 0.0, 255.0, "uint8_t");
    case DType::Float32: largest = 3.4028234663852886e38, type_name = "float"; break;
    case DType::Float16: largest = 65504.0, type_name = "at::Half"; break;
    case DType::BFloat16: largest = 3.3895313892515355e38, type_name = "at::BFloat16"; break;
    default: return;  // float64 holds any double; bool takes anything
  }
  EMBER_CHECK(std::isinf(v) || std::isnan(v) || std::fabs(v) <= largest, "value cannot be converted to type ",
              type_name, " without overflow");
}

Tensor scalar(Scalar value, DType dtype, Device device) {
  Tensor out = new_empty({}, dtype, device);
  kernels::on(device).fill(out, value);
  return out;
}

Tensor on_device(const Tensor& t, Device device) {
  if (!t.defined() || t.device() == device) return t;
  EMBER_INTERNAL_ASSERT(t.dim() == 0 && t.device().is_cpu(), "only a 0-dim CPU tensor joins another device's op");
  return scalar(t.item(), t.dtype(), device);
}

Tensor finish_factory(Tensor made, const Options& options) {
  Tensor out = made.device() == options.device_ ? made : made.to(options.device_);
  if (options.requires_grad_) {
    EMBER_CHECK(out.is_floating_point(), "Only Tensors of floating point and complex dtype can require gradients");
    out.requires_grad_();
  }
  return out;
}

}  // namespace ember::internal
