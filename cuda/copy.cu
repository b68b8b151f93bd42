// Copy (with any dtype conversion and any strides) and fill on the GPU. A same-dtype contiguous
// copy is one cudaMemcpy; everything else is one grid-stride loop.
#include "device_loops.cuh"
#include "kernels/kernel_list.h"

namespace ember::kernels::cuda {

namespace {

template <typename To, typename From>
void convert_as(const Tensor& dst, const Tensor& src) {
  map_elements<To, From>(
      dst, {src}, [] __device__(From v) { return convert<To>(v); }, "copy");
}

template <typename T>
void fill_as(const Tensor& dst, Scalar value) {
  const bool floating = value.is_floating_point();
  const double as_double = floating ? value.to_double() : 0.0;
  const int64_t as_int = floating ? 0 : value.to_int();
  const Strided<1> layout({dst});
  launch_elements(
      dst.numel(),
      [=] __device__(int64_t i) {
        char* address[1];
        layout.addresses(i, address);
        *reinterpret_cast<T*>(address[0]) = floating ? convert<T>(as_double) : convert<T>(as_int);
      },
      "fill");
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.numel() > 0) {
      const cudaError_t status =
          cudaMemcpy(dst.raw_data(), src.raw_data(), dst.numel() * dst.element_size(), cudaMemcpyDeviceToDevice);
      EMBER_CHECK(status == cudaSuccess, "CUDA error: ", cudaGetErrorString(status), " (copy)");
    }
    return;
  }
  visit_device_dtype(dst.dtype(), [&](auto to) {
    visit_device_dtype(src.dtype(), [&](auto from) { convert_as<decltype(to), decltype(from)>(dst, src); });
  });
}

void fill(const Tensor& dst, Scalar value) {
  visit_device_dtype(dst.dtype(), [&](auto tag) { fill_as<decltype(tag)>(dst, value); });
}

}  // namespace ember::kernels::cuda
