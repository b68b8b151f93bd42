// Shared helpers for op implementations (see internal.h).
#include "internal.h"

#include <cmath>

#include "core/cuda_backend.h"
#include "core/inference_mode.h"
#include "core/memory_layout.h"
#include "kernels/backend.h"

namespace ember::internal {

namespace {
// A tensor over fresh bytes: numel elements, which any dense layout of `sizes` needs.
Tensor new_dense(const Dims& sizes, const Dims& strides, DType dtype, Device device) {
  int64_t nbytes = element_size(dtype);
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", to_string(sizes));
    EMBER_CHECK(!__builtin_mul_overflow(nbytes, s, &nbytes),
                "Storage size calculation overflowed with sizes=", to_string(sizes));
  }
  return Tensor(std::make_shared<TensorImpl>(std::make_shared<Storage>(nbytes, device), sizes, strides, 0, dtype,
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

Tensor new_empty_like(const Tensor& t, DType dtype) {
  return new_empty_strided(t.sizes(), preserved_strides({t.sizes(), t.strides()}), dtype, t.device());
}

Tensor with_layout(const Tensor& t, DType dtype, const Dims& strides) {
  if (t.dtype() == dtype && t.strides() == strides) return t;
  Tensor out = new_empty_strided(t.sizes(), strides, dtype, t.device());
  kernels::on(t.device()).copy(out, t);
  return out;
}

Tensor alias(const Tensor& t) {
  const TensorImpl& impl = *t.impl();
  return Tensor(std::make_shared<TensorImpl>(impl, impl.sizes, impl.strides, impl.storage_offset, impl.dtype));
}

Tensor broadcast_to(const Tensor& t, const Dims& sizes) {
  if (t.sizes() == sizes) return t;
  const int64_t lead = sizes.size() - t.dim();
  Dims strides = Dims::filled(sizes.size(), 0);
  for (int64_t d = 0; d < t.dim(); ++d) strides[lead + d] = t.size(d) == 1 && sizes[lead + d] != 1 ? 0 : t.stride(d);
  return Tensor(std::make_shared<TensorImpl>(*t.impl(), sizes, strides, t.storage_offset(), t.dtype()));
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

void check_fits(Scalar value, DType dtype) {
  const double v = value.to_double();
  double largest = 0;  // of the dtype; 0 where nothing can overflow
  const char* type_name = "";
  switch (dtype) {
    case DType::Int64:
      if (!value.is_floating_point()) return;
      EMBER_CHECK(!std::isnan(v) && v >= -9.2233720368547758e18 && v <= 9.2233720368547758e18,
                  "value cannot be converted to type int64_t without overflow");
      return;
    case DType::Float32: largest = 3.4028234663852886e38, type_name = "float"; break;
    case DType::Float16: largest = 65504.0, type_name = "at::Half"; break;
    case DType::BFloat16: largest = 3.3895313892515355e38, type_name = "at::BFloat16"; break;
    default: return;  // float64 holds any double; bool takes anything
  }
  EMBER_CHECK(std::isinf(v) || std::isnan(v) || std::fabs(v) <= largest, "value cannot be converted to type ",
              type_name, " without overflow");
}

Tensor scalar(Scalar value, DType dtype, Device device) {
  Tensor out = new_empty({}, dtype, kCPU);
  kernels::on(kCPU).fill(out, value);
  return device.is_cpu() ? out : out.to(device);
}

DType compute_dtype(DType dtype) {
  switch (dtype) {
    case DType::BFloat16:
    case DType::Float16: return kFloat32;
    case DType::Bool: return kInt64;
    default: return dtype;
  }
}

namespace {
// Category order: bool < integral < floating.
int category(DType d) { return d == kBool ? 0 : d == kInt64 ? 1 : 2; }
// ATen's combine_categories: the higher-priority result wins unless the lower one is of a
// higher category, in which case they are promoted together.
DType combine(DType higher, DType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_types(higher, lower);
  return higher;
}
DType wrapped_number_dtype(Scalar s) { return s.is_floating_point() ? kFloat32 : s.is_integral() ? kInt64 : kBool; }
}  // namespace

DType result_type(const Tensor& a, const Tensor& b) {
  const bool a_dims = a.dim() > 0, b_dims = b.dim() > 0;
  if (a_dims == b_dims) return promote_types(a.dtype(), b.dtype());
  const Tensor& dimensioned = a_dims ? a : b;
  const Tensor& zero_dim = a_dims ? b : a;
  if (category(zero_dim.dtype()) > category(dimensioned.dtype())) return combine(dimensioned.dtype(), zero_dim.dtype());
  return dimensioned.dtype();
}

DType result_type(const Tensor& a, Scalar b) {
  DType number = wrapped_number_dtype(b);
  if (category(number) > category(a.dtype())) return combine(a.dtype(), number);
  return a.dtype();
}

void check_can_cast(DType result, DType out) {
  const bool narrows = (is_floating_point(result) && !is_floating_point(out)) || (result != kBool && out == kBool);
  EMBER_CHECK(!narrows, "result type ", scalar_type_name(result), " can't be cast to the desired output type ",
              scalar_type_name(out));
}

Tensor finish_factory(Tensor cpu, const Options& options) {
  Tensor out = options.device_.is_cpu() ? cpu : cpu.to(options.device_);
  if (options.requires_grad_) {
    EMBER_CHECK(out.is_floating_point(), "Only Tensors of floating point and complex dtype can require gradients");
    out.requires_grad_();
  }
  return out;
}

void check_no_internal_overlap(const Tensor& written) {
  for (int64_t d = 0; d < written.dim(); ++d)
    EMBER_CHECK(!(written.stride(d) == 0 && written.size(d) > 1),
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.");
}

// PyTorch's get_overlap_status (c10/core/MemoryOverlap.cpp): only two tensors that are both
// non-overlapping and dense are compared (anything else is "too hard" and let through, as PyTorch
// lets it through); the same byte range with the same strides is the same tensor (a += a); any
// other shared bytes are a partial overlap.
void check_no_partial_overlap(const Tensor& written, const Tensor& read) {
  if (written.impl()->storage != read.impl()->storage || written.numel() == 0 || read.numel() == 0) return;
  if (!is_non_overlapping_and_dense({written.sizes(), written.strides()}) ||
      !is_non_overlapping_and_dense({read.sizes(), read.strides()}))
    return;
  const int64_t w_begin = written.storage_offset() * written.element_size();
  const int64_t w_end = w_begin + written.numel() * written.element_size();
  const int64_t r_begin = read.storage_offset() * read.element_size();
  const int64_t r_end = r_begin + read.numel() * read.element_size();
  const bool same_tensor = w_begin == r_begin && w_end == r_end && written.strides() == read.strides();
  EMBER_CHECK(same_tensor || w_end <= r_begin || r_end <= w_begin,
              "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
              "memory location. Please clone() the tensor before performing the operation.");
}

void check_same_device(const Tensor& a, const Tensor& b) {
  if (a.device() == b.device()) return;
  // 0-dim CPU tensors may be combined with tensors on any device, as in PyTorch.
  if (b.dim() == 0 && b.device().is_cpu()) return;
  if (a.dim() == 0 && a.device().is_cpu()) return;
  throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ",
                      a.device().str(), " and ", b.device().str(), "!"));
}

void check_same_device(std::initializer_list<NamedArgument> arguments, const char* method) {
  const Device common = arguments.begin()->tensor.device();
  for (const NamedArgument& argument : arguments)
    if (argument.tensor.defined() && argument.tensor.device() != common)
      throw Error(str_cat("Expected all tensors to be on the same device, but found at least two devices, ",
                          common.str(), " and ", argument.tensor.device().str(),
                          "! (when checking argument for argument ", argument.name, " in method ", method, ")"));
}

}  // namespace ember::internal
