// Element copy and fill on the CPU through the strided loop of loops.h.
#include "convert.h"
#include "kernel_list.h"

#include <cstring>
#include <limits>

#include "loops.h"
#include "visit_dtype.h"

namespace ember::kernels::cpu {

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.numel() > 0) std::memcpy(dst.raw_data(), src.raw_data(), dst.numel() * dst.element_size());
    return;
  }
  visit_dtype(dst.dtype(), [&](auto dst_tag) {
    using To = decltype(dst_tag);
    visit_dtype(src.dtype(), [&](auto src_tag) {
      using From = decltype(src_tag);
      map_elements<To, From>(dst, {src}, [](From v) { return convert<To>(v); });
    });
  });
}

void fill(const Tensor& dst, Scalar value) {
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T v = value.is_floating_point() ? convert<T>(value.to_double()) : convert<T>(value.to_int());
    for_each_run<1>({dst}, [&](const Run<1>& run) {
      for (int64_t i = 0; i < run.count; ++i) *reinterpret_cast<T*>(run.data[0] + i * run.stride[0]) = v;
    });
  });
}

}  // namespace ember::kernels::cpu
