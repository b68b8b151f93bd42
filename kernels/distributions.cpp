// The sampling kernels (see distributions.h). Reading guide: the single-value transforms come
// first, then the 16-value Box–Muller transforms per dtype (with the float32 log/sin/cos of
// approximate_math.h), then the loops that fill whole tensors.
//
// Fused multiply-adds: ember is compiled with -ffp-contract=off, so `a * b + c` is always two
// roundings. PyTorch's x86 build lets GCC fuse such expressions into one fma (a single
// rounding), which changes last bits; every place where it does is written as std::fma here.
#include "distributions.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <type_traits>
#include <vector>

#include "approximate_math.h"
#include "convert.h"
#include "kernel_list.h"
#include "visit_dtype.h"

namespace ember::kernels {

namespace {

template <typename T>
constexpr bool is_floating = std::is_floating_point_v<T> || std::is_same_v<T, BFloat16> || std::is_same_v<T, Float16>;

// Calls visit(element) for every element of `self` in memory order, which is the order
// PyTorch's TensorIterator walks a lone output: dimensions sorted by stride, the largest stride
// outermost. A transposed tensor is therefore filled as its storage lies, not row by row.
template <typename T, typename Visit>
void for_each_in_memory_order(const Tensor& self, Visit&& visit) {
  T* data = static_cast<T*>(self.raw_data());
  const int64_t count = self.numel();
  if (count == 0) return;
  if (self.is_contiguous()) {
    for (int64_t i = 0; i < count; ++i) visit(data[i]);
    return;
  }
  std::vector<int64_t> order;  // the dimensions that matter (size > 1), outermost first
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) > 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return self.stride(a) > self.stride(b); });
  std::vector<int64_t> index(order.size(), 0);
  int64_t offset = 0;
  for (int64_t visited = 0; visited < count; ++visited) {
    visit(data[offset]);
    // Odometer: advance the innermost dimension, carrying into the outer ones.
    for (int64_t k = static_cast<int64_t>(order.size()) - 1; k >= 0; --k) {
      const int64_t d = order[k];
      offset += self.stride(d);
      if (++index[k] < self.size(d)) break;
      offset -= self.stride(d) * self.size(d);
      index[k] = 0;
    }
  }
}

// ---- uniform values per dtype ----

// A float32 uniform in [from, to) from one 32-bit draw: its low 24 bits scaled to [0, 1).
float uniform_float_from(uint32_t bits, float from, float to) {
  const float x = static_cast<float>(bits & 0xffffffu) * 0x1.0p-24f;  // 24 bits
  return std::fma(x, to - from, from);
}

// `count` float32 uniforms in [0, 1), the same as `count` calls of uniform_float: the draws come a
// block at a time (Generator::random_block) and are then scaled in a loop the compiler vectorises.
void uniform_floats(float* data, int64_t count, Generator& generator) {
  constexpr int64_t kBlock = 1024;
  uint32_t bits[kBlock];
  for (int64_t first = 0; first < count; first += kBlock) {
    const int64_t n = std::min(kBlock, count - first);
    generator.random_block(bits, n);
    for (int64_t i = 0; i < n; ++i) data[first + i] = uniform_float_from(bits[i], 0.0f, 1.0f);
  }
}

// PyTorch computes 16-bit uniforms in float: the low `digits` bits of one 32-bit draw scaled to
// [0, 1), times the range (rounded to the 16-bit type first, since c10's Half - Half returns a
// Half) plus from, fused; only the result is rounded to the 16-bit type. (The product of an
// 11- or 8-bit x and a 16-bit range is exact in float, so here fusing changes nothing.)
template <typename Low>
Low uniform_low_precision(Generator& generator, Low from, Low to, int digits) {
  const uint32_t mask = (1u << digits) - 1;
  const float x = static_cast<float>(generator.random() & mask) * std::ldexp(1.0f, -digits);
  const float range = static_cast<float>(Low(static_cast<float>(to) - static_cast<float>(from)));
  return Low(std::fma(x, range, static_cast<float>(from)));
}

template <typename T>
T uniform_element(Generator& generator, T from, T to) {
  if constexpr (std::is_same_v<T, float>) return uniform_float(generator, from, to);
  else if constexpr (std::is_same_v<T, double>) return uniform_double(generator, from, to);
  else if constexpr (std::is_same_v<T, Float16>) return uniform_low_precision(generator, from, to, 11);
  else return uniform_low_precision(generator, from, to, 8);  // BFloat16
}

// ---- the 16-value Box–Muller transform, per dtype ----
// data[0..15] hold uniforms in [0, 1). For j < 8, data[j] gives the radius
// sqrt(-2 log(1 - data[j])) and data[j + 8] the angle 2 pi data[j + 8]; the two normals
// radius * cos(angle) and radius * sin(angle) replace them, scaled by std and shifted by mean.

constexpr double kPi = std::numbers::pi;

// float32: PyTorch's normal_fill_16_AVX2. The loop over the 8 lanes has no branches, so the
// compiler can turn it back into 8-wide vector code, provided sqrt need not set errno
// (-fno-math-errno, a flag PyTorch builds with); vectorised or not, the bits are the same.
void normal_transform_16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0f * kPi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * approximate_log(u1));
    const float theta = two_pi * u2;
    float sine, cosine;
    approximate_sincos(theta, sine, cosine);
    data[j] = std::fma(radius * cosine, std, mean);
    data[j + 8] = std::fma(radius * sine, std, mean);
  }
}

// float64: PyTorch's scalar normal_fill_16<double>, with libm.
void normal_transform_16(double* data, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1.0 - data[j];
    const double u2 = data[j + 8];
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * kPi * u2;
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// float16: normal_fill_16<c10::Half>. Half has no math functions of its own, so log, sqrt, cos
// and sin run in float; each named intermediate (u1, radius, theta) is stored as a Half, and the
// angle goes double -> float -> Half.
void normal_transform_16(Float16* data, Float16 mean, Float16 std) {
  for (int j = 0; j < 8; ++j) {
    const Float16 u1 = Float16(1.0f - static_cast<float>(data[j]));
    const Float16 u2 = data[j + 8];
    const Float16 radius = Float16(std::sqrt(-2.0f * std::log(static_cast<float>(u1))));
    const Float16 theta = Float16(static_cast<float>(2.0 * kPi * static_cast<double>(static_cast<float>(u2))));
    const float r = radius, t = theta;
    data[j] = Float16(std::fma(r * std::cos(t), static_cast<float>(std), static_cast<float>(mean)));
    data[j + 8] = Float16(std::fma(r * std::sin(t), static_cast<float>(std), static_cast<float>(mean)));
  }
}

// bfloat16: normal_fill_16<c10::BFloat16>. c10 gives BFloat16 its own log, sqrt, cos, sin and
// arithmetic, each rounding its result to bfloat16, so every step below is rounded.
void normal_transform_16(BFloat16* data, BFloat16 mean, BFloat16 std) {
  auto rounded = [](float value) { return static_cast<float>(BFloat16(value)); };
  for (int j = 0; j < 8; ++j) {
    const float u1 = rounded(1.0f - static_cast<float>(data[j]));
    const float u2 = data[j + 8];
    const float radius = rounded(std::sqrt(rounded(-2.0f * rounded(std::log(u1)))));
    const float theta = rounded(static_cast<float>(2.0 * kPi * static_cast<double>(u2)));
    const float cosine = rounded(std::cos(theta)), sine = rounded(std::sin(theta));
    data[j] = BFloat16(rounded(rounded(radius * cosine) * static_cast<float>(std)) + static_cast<float>(mean));
    data[j + 8] = BFloat16(rounded(rounded(radius * sine) * static_cast<float>(std)) + static_cast<float>(mean));
  }
}

// PyTorch's normal_fill: n uniforms in memory order, the transform on each full block of 16, and
// when n is not a multiple of 16, 16 *new* uniforms written over the last 16 slots (overlapping
// values already finished) and transformed again. Total draws: n, plus 16 when there is a tail.
template <typename T>
void box_muller_block_fill(T* data, int64_t count, T mean, T std, Generator& generator) {
  if constexpr (std::is_same_v<T, float>) uniform_floats(data, count, generator);
  else
    for (int64_t i = 0; i < count; ++i) data[i] = uniform_element<T>(generator, T(0.0f), T(1.0f));
  for (int64_t i = 0; i + 16 <= count; i += 16) normal_transform_16(data + i, mean, std);
  if (count % 16 != 0) {
    T* last = data + count - 16;
    for (int k = 0; k < 16; ++k) last[k] = uniform_element<T>(generator, T(0.0f), T(1.0f));
    normal_transform_16(last, mean, std);
  }
}

}  // namespace

// ---- single values ----

float uniform_float(Generator& generator, float from, float to) {
  return uniform_float_from(generator.random(), from, to);
}

double uniform_double(Generator& generator, double from, double to) {
  const double x = static_cast<double>(generator.random64() & 0x1fffffffffffffull) * 0x1.0p-53;  // 53 bits
  return std::fma(x, to - from, from);
}

double normal_double(Generator& generator, double mean, double std) {
  if (const std::optional<double> cached = generator.next_double_normal_sample()) {
    generator.set_next_double_normal_sample(std::nullopt);
    return std::fma(*cached, std, mean);
  }
  const double u1 = uniform_double(generator);
  const double u2 = uniform_double(generator);
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * kPi * u1;
  generator.set_next_double_normal_sample(radius * std::sin(theta));
  return std::fma(radius * std::cos(theta), std, mean);
}

// ---- whole tensors ----

void uniform_fill(const Tensor& self, double from, double to, Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating<T>) {
      const T low = convert<T>(from), high = convert<T>(to);
      for_each_in_memory_order<T>(self, [&](T& element) { element = uniform_element<T>(generator, low, high); });
    } else {
      throw Error("uniform_fill needs a floating-point tensor");
    }
  });
}

void normal_fill(const Tensor& self, double mean, double std, Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  const bool block_path = self.numel() >= 16 && self.is_contiguous();
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating<T>) {
      if (block_path) {
        box_muller_block_fill<T>(static_cast<T*>(self.raw_data()), self.numel(), convert<T>(mean), convert<T>(std),
                                 generator);
      } else {
        for_each_in_memory_order<T>(self,
                                    [&](T& element) { element = convert<T>(normal_double(generator, mean, std)); });
      }
    } else {
      throw Error("normal_fill needs a floating-point tensor");
    }
  });
}

void bernoulli_fill(const Tensor& self, double p, Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    for_each_in_memory_order<T>(self,
                                [&](T& element) { element = convert<T>(uniform_double(generator) < p ? 1.0 : 0.0); });
  });
}

void bernoulli_fill(const Tensor& self, const Tensor& probabilities, Generator& generator) {
  EMBER_CHECK(self.is_contiguous() && probabilities.is_contiguous() && self.numel() == probabilities.numel(),
              "bernoulli_fill expects contiguous tensors of the same size");
  std::lock_guard<std::mutex> lock(generator.mutex());
  const char* const out_of_range =
      "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, "
      "please report an enhancement request to PyTorch.)";
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* out = static_cast<T*>(self.raw_data());
    const int64_t count = self.numel();
    if (probabilities.dtype() == kFloat64) {
      const double* p = static_cast<const double*>(probabilities.raw_data());
      for (int64_t i = 0; i < count; ++i) {
        EMBER_CHECK(p[i] >= 0 && p[i] <= 1, out_of_range);
        out[i] = convert<T>(uniform_double(generator) < p[i] ? 1.0 : 0.0);
      }
    } else {
      visit_dtype(probabilities.dtype(), [&](auto probability_tag) {
        using P = decltype(probability_tag);
        if constexpr (std::is_same_v<P, float> || std::is_same_v<P, BFloat16>) {
          const P* p = static_cast<const P*>(probabilities.raw_data());
          for (int64_t i = 0; i < count; ++i) {
            const float probability = static_cast<float>(p[i]);
            EMBER_CHECK(probability >= 0 && probability <= 1, out_of_range);
            out[i] = convert<T>(uniform_float(generator) < probability ? 1.0 : 0.0);
          }
        } else {
          throw Error("bernoulli_fill takes float64, float32 or bfloat16 probabilities");
        }
      });
    }
  });
}

void random_fill(const Tensor& self, uint64_t range, int64_t base, Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    constexpr bool may_draw_64_bits = std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                                      std::is_same_v<T, float> || std::is_same_v<T, BFloat16>;
    const bool draws_64_bits = may_draw_64_bits && range >= (uint64_t{1} << 32);
    for_each_in_memory_order<T>(self, [&](T& element) {
      const uint64_t draw = draws_64_bits ? generator.random64() : generator.random();
      element = convert<T>(static_cast<int64_t>(draw % range + static_cast<uint64_t>(base)));
    });
  });
}

void randperm_fill(const Tensor& self, Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  const int64_t n = self.numel();
  const int64_t stride = self.dim() > 0 ? self.stride(0) : 1;
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* data = static_cast<T*>(self.raw_data());
    for (int64_t i = 0; i < n; ++i) data[i * stride] = convert<T>(i);
    for (int64_t i = 0; i + 1 < n; ++i) {
      const int64_t chosen = i + static_cast<int64_t>(generator.random() % static_cast<uint64_t>(n - i));
      std::swap(data[i * stride], data[chosen * stride]);
    }
  });
}

}  // namespace ember::kernels
