// Factories: tensors made from nothing (zeros, arange, eye, ...) or from C++ values. Constant fills
// are made on the requested device by its fill kernel, which takes the value as an argument;
// values computed on the host (arange, from_vector) are made on the CPU and then moved.
#include <cmath>

#include "api/new_tensors.h"
#include "core/inference_mode.h"
#include "core/memory_layout.h"
#include "dispatch.h"
#include "kernels/backend.h"
#include "profiler/steps.h"

namespace ember {

using internal::finish_factory;

Tensor empty(const Dims& sizes, Options options) {
  Tensor out = internal::new_empty(sizes, options.dtype_, options.device_);
  return finish_factory(out, options.device(out.device()));
}

// zeros, ones and full as ATen makes them, and as a profile shows them: aten::zeros > aten::empty,
// aten::zero_; aten::ones > empty, fill_; aten::full > empty, fill_ (profiler/steps.h).
namespace {
using profiler::steps::Factory;
using profiler::steps::Unrecorded;
using profiler::steps::unset;  // an option record_shapes lists as [] (size, dtype, layout, device, ...)

Tensor filled(const Dims& sizes, Scalar value, const Options& options) {
  Tensor out = internal::recorded_empty(sizes, options.dtype_, options.device_);
  internal::fill_new_tensor(out, value);
  return finish_factory(out, options);
}
}  // namespace

Tensor full(const Dims& sizes, Scalar value, Options options) {
  profiler::OpEvent<Factory<profiler::steps::kFull>> event(unset, unset, unset, unset, unset, unset);
  // PyTorch's infer_full_options: without a dtype the fill value picks it, so full({3, 4}, 123) is
  // int64 and full({2}, true) bool; a floating value gives the default dtype (float32 unless set).
  if (!options.has_dtype) options.dtype(value.is_bool() ? kBool : value.is_integral() ? kInt64 : get_default_dtype());
  internal::check_fits(value, options.dtype_);
  return filled(sizes, value, options);
}

Tensor zeros(const Dims& sizes, Options options) {
  profiler::OpEvent<Factory<profiler::steps::kZeros>> event(unset, unset, unset, unset, unset);
  Tensor out = internal::recorded_empty(sizes, options.dtype_, options.device_);
  internal::zero_new_tensor(out);
  return finish_factory(out, options);
}
Tensor ones(const Dims& sizes, Options options) {
  profiler::OpEvent<Factory<profiler::steps::kOnes>> event(unset, unset, unset, unset, unset);
  return filled(sizes, 1, options);
}
namespace {
// An op (a composite one) rather than a plain factory: backward() seeds its gradient with it, and
// a profile shows it there as PyTorch's does, aten::ones_like around aten::fill_.
struct OnesLike : CompositeOp {
  static constexpr const char* name = "aten::ones_like";
  // ones_like(self, dtype, layout, device, pin_memory, memory_format): ember's takes self alone,
  // and the five options unset, so that record_shapes lists PyTorch's arguments.
  template <typename... Unset>
  static Tensor compute(const Tensor& t, const Unset&...) {
    // Laid out like t (PyTorch's memory_format=preserve), made by empty_like as ATen's is (so a
    // profile shows aten::empty_like > aten::empty_strided, then aten::fill_), on t's device.
    Tensor out = internal::recorded_empty_like(t, MemoryFormat::Preserve);
    internal::fill_new_tensor(out, 1);
    return out;
  }
};
}  // namespace

// The *_like factories lay their result out like t, as PyTorch's (memory_format=preserve) do.
Tensor zeros_like(const Tensor& t) {
  profiler::OpEvent<Factory<profiler::steps::kZerosLike>> event(t, unset, unset, unset, unset, unset);
  Tensor out = internal::recorded_empty_like(t, MemoryFormat::Preserve);
  internal::zero_new_tensor(out);
  return out;
}
Tensor ones_like(const Tensor& t) { return call<OnesLike>(t, unset, unset, unset, unset, unset); }
Tensor empty_like(const Tensor& t) { return internal::new_empty_like(t, t.dtype()); }

// With options: those given replace t's dtype and device; the values are made as without them.
Tensor zeros_like(const Tensor& t, Options options) {
  return internal::like(t, options, [&](const Tensor& u) { return zeros_like(u); });
}
Tensor ones_like(const Tensor& t, Options options) {
  return internal::like(t, options, [&](const Tensor& u) { return ones_like(u); });
}
Tensor empty_like(const Tensor& t, Options options) {
  return internal::like(t, options, [&](const Tensor& u) { return empty_like(u); });
}
Tensor full_like(const Tensor& t, Scalar value, Options options) {
  return internal::like(t, options, [&](const Tensor& u) {
    profiler::OpEvent<Factory<profiler::steps::kFullLike>> event(u, unset, unset, unset, unset, unset, unset);
    internal::check_fits(value, u.dtype());
    Tensor out = internal::recorded_empty_like(u, MemoryFormat::Preserve);
    internal::fill_new_tensor(out, value);
    return out;
  });
}

Tensor empty_strided(const Dims& sizes, const Dims& strides, Options options) {
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  return internal::finish_factory(internal::new_empty_with_strides(sizes, strides, options.dtype_), options);
}

Tensor arange(Scalar end, Options options) { return arange(0, end, 1, options); }
Tensor arange(Scalar start, Scalar end, Options options) { return arange(start, end, 1, options); }

namespace {
// arange's checks, in PyTorch's order and texts, on its bounds as the result's type computes them.
template <typename T>
void check_range(T start, T end, T step) {
  EMBER_CHECK(step != 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(static_cast<double>(start)) && std::isfinite(static_cast<double>(end)),
              "unsupported range: ", start, " -> ", end);
  EMBER_CHECK((step > 0 && end >= start) || (step < 0 && end <= start),
              "upper bound and larger bound inconsistent with step sign");
}

// An int64 range is computed in int64, as PyTorch's is: a double holds every integer only up to
// 2^53, so arange(2^53, 2^53 + 4) in double repeated values and arange(2^60, 2^60 + 5, 2) came out
// empty. The count is ceil((end - start) / step), taken in 128 bits where end - start overflows.
Tensor int64_range(Scalar start_scalar, Scalar end_scalar, Scalar step_scalar) {
  const int64_t start = start_scalar.to<int64_t>(), end = end_scalar.to<int64_t>(), step = step_scalar.to<int64_t>();
  check_range(start, end, step);
  const __int128 span = static_cast<__int128>(end) - start;
  const __int128 count = (span + step - (step > 0 ? 1 : -1)) / step;
  EMBER_CHECK(count <= INT64_MAX, "invalid size, possible overflow?");
  Tensor values = internal::new_empty({static_cast<int64_t>(count)}, kInt64);
  int64_t* v = values.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<int64_t>(start + static_cast<__int128>(step) * i);
  return values;
}

// A floating range is computed in double and then rounded to the result's dtype.
Tensor double_range(Scalar start, Scalar end, Scalar step) {
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  check_range(s, e, st);
  const double count_exact = std::ceil((e - s) / st);
  EMBER_CHECK(count_exact < 9223372036854775808.0, "invalid size, possible overflow?");  // below 2^63: fits int64
  const int64_t count = static_cast<int64_t>(count_exact);
  Tensor values = internal::new_empty({count}, kFloat64);
  double* v = values.data_ptr<double>();
  for (int64_t i = 0; i < count; ++i) v[i] = s + st * static_cast<double>(i);
  return values;
}
}  // namespace

Tensor arange(Scalar start, Scalar end, Scalar step, Options options) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  // With no explicit dtype, integer bounds give int64 as in torch.arange.
  if (!floating && !options.has_dtype) options.dtype_ = kInt64;
  Tensor values = options.dtype_ == kInt64 ? int64_range(start, end, step) : double_range(start, end, step);
  return finish_factory(internal::converted(values, options.dtype_), options);
}

Tensor eye(int64_t n, Options options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, Options options) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  product({n, m});  // PyTorch resizes its result first: "numel: integer multiplication overflow"
  Tensor out = internal::new_empty({n, m}, options.dtype_, options.device_);
  kernels::on(out.device()).fill(out, 0);
  if (n > 0 && m > 0) {
    const Tensor diagonal = internal::alias_with_layout(out, Dims{std::min(n, m)}, Dims{m + 1}, 0);
    kernels::on(out.device()).fill(diagonal, 1);
  }
  return finish_factory(out, options);
}

template <typename T>
Tensor from_vector(const std::vector<T>& values, const Dims& sizes, Options options) {
  EMBER_CHECK(product(sizes) == static_cast<int64_t>(values.size()), "shape '", to_string(sizes),
              "' is invalid for input of size ", values.size());
  Tensor raw = internal::new_empty(sizes, dtype_of<T>());
  std::copy(values.begin(), values.end(), raw.data_ptr<T>());
  return finish_factory(internal::converted(raw, options.has_dtype ? options.dtype_ : dtype_of<T>()), options);
}
template Tensor from_vector(const std::vector<float>&, const Dims&, Options);
template Tensor from_vector(const std::vector<double>&, const Dims&, Options);
template Tensor from_vector(const std::vector<int64_t>&, const Dims&, Options);
template Tensor from_vector(const std::vector<int32_t>&, const Dims&, Options);
template Tensor from_vector(const std::vector<int16_t>&, const Dims&, Options);
template Tensor from_vector(const std::vector<int8_t>&, const Dims&, Options);
template Tensor from_vector(const std::vector<uint8_t>&, const Dims&, Options);

Tensor from_vector(const std::vector<bool>& values, const Dims& sizes, Options options) {
  std::vector<int64_t> as_int(values.begin(), values.end());
  if (!options.has_dtype) options.dtype(kBool);
  return from_vector(as_int, sizes, options);
}

// Like torch.tensor([1.0, 2.0]): Python floats make a tensor of the default dtype unless a dtype is given.
Tensor tensor(const std::vector<double>& values, const Dims& sizes, Options options) {
  if (!options.has_dtype) options.dtype(get_default_dtype());
  return from_vector(values, sizes, options);
}
Tensor tensor(const std::vector<double>& values, Options options) {
  return tensor(values, {static_cast<int64_t>(values.size())}, options);
}

Tensor from_blob(void* data, const Dims& sizes, const Dims& strides, std::function<void(void*)> release,
                 Options options) {
  EMBER_CHECK(options.device_.is_cpu(), "from_blob: ember wraps CPU memory only, not ", options.device_.str());
  EMBER_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape");
  int64_t last = 0;  // the furthest element's offset: the bytes the tensor may read
  for (int64_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0, "Trying to create tensor with negative dimension ", sizes[d], ": ", to_string(sizes));
    EMBER_CHECK(strides[d] >= 0,
                "as_strided: Negative strides are not supported at the moment, got strides: ", to_string(strides));
    last += (sizes[d] - 1) * strides[d];
  }
  const int64_t nbytes = product(sizes) == 0 ? 0 : (last + 1) * element_size(options.dtype_);
  auto storage = make_recycled<Storage>(data, nbytes, kCPU, std::move(release));
  Tensor out(make_recycled<TensorImpl>(std::move(storage), sizes, strides, 0, options.dtype_,
                                       /*tracks_version=*/!InferenceMode::is_enabled()));
  return finish_factory(out, options);
}

Tensor from_blob(void* data, const Dims& sizes, Options options) {
  return from_blob(
      data, sizes, contiguous_strides(sizes), [](void*) {}, options);
}
Tensor from_blob(void* data, const Dims& sizes, std::function<void(void*)> deleter, Options options) {
  return from_blob(data, sizes, contiguous_strides(sizes), std::move(deleter), options);
}

Tensor scalar_tensor(Scalar value, Options options) {
  internal::check_fits(value, options.dtype_);
  return finish_factory(internal::scalar(value, options.dtype_, options.device_), options);
}

}  // namespace ember
