// The random ops: each checks its arguments with PyTorch's messages, in PyTorch's order, then
// hands the tensor to a sampling kernel (kernels/distributions.h). The factories are written as
// PyTorch writes them: rand is empty(...).uniform_(0, 1), randn is empty(...).normal_(0, 1),
// randint is empty(...).random_(low, high), so they draw exactly what the in-place forms draw.
#include "api/random.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "api/new_tensors.h"
#include "core/allocator.h"
#include "core/memory_overlap.h"
#include "dispatch.h"
#include "kernels/convert.h"
#include "kernels/distributions.h"
#include "kernels/kernel_list.h"
#include "kernels/visit_dtype.h"
#include "profiler/steps.h"

namespace ember {

using namespace autograd;  // the backward nodes

namespace {

Generator& generator_or_default(Generator* generator) { return generator ? *generator : default_generator(); }

// PyTorch's AT_DISPATCH error for a dtype an op has no kernel for.
void check_dtype_supported(bool supported, const char* kernel_name, DType dtype) {
  EMBER_CHECK(supported, "\"", kernel_name, "\" not implemented for '", scalar_type_name(dtype), "'");
}

// Runs `fill` (a kernel writing CPU elements) on self. A CUDA tensor is filled through a CPU
// tensor that is copied over afterwards: its numbers are the CPU generator's, unlike PyTorch,
// whose CUDA tensors draw from the CUDA generator (Philox), a different stream.
template <typename Fill>
void fill_on_cpu(const Tensor& self, Fill&& fill) {
  if (self.device().is_cpu()) {
    fill(self);
    return;
  }
  EMBER_CHECK(self.is_contiguous(),
              "ember samples a CUDA tensor on the CPU and copies the values over, which needs a contiguous tensor");
  Tensor staging = internal::new_empty(self.sizes(), self.dtype());
  fill(staging);
  const int64_t nbytes = self.numel() * self.element_size();
  if (nbytes > 0) copy_bytes(self.device(), self.raw_data(), staging.raw_data(), nbytes, cuda::CopyKind::HostToDevice);
}

// ---- random_'s bounds for floating dtypes (PyTorch's update_from / update_to) ----
// random_ draws an integer and converts it to the dtype; near the ends of a wide range the
// rounding could land on `to` itself. PyTorch therefore moves `from` up and `to` down to the
// nearest integers that survive the conversion.
template <typename T>
constexpr int mantissa_digits() {
  if constexpr (std::is_same_v<T, float>) return 24;
  else if constexpr (std::is_same_v<T, double>) return 53;
  else if constexpr (std::is_same_v<T, Float16>) return 11;
  else return 8;  // BFloat16
}

template <typename T>
int64_t through_dtype(int64_t value) {
  return kernels::convert<int64_t>(kernels::convert<T>(value));
}

template <typename T>
int64_t update_from(int64_t from) {
  const int64_t from_plus_1 = through_dtype<T>(from + 1);
  if (from_plus_1 < from) {
    int64_t magnitude = std::abs(from + 1);
    int bits = 0;
    while (magnitude >>= 1) ++bits;
    from = from_plus_1 + (int64_t{1} << (bits - mantissa_digits<T>() + 1));
  }
  return from;
}

template <typename T>
int64_t update_to(int64_t to) {
  const int64_t to_minus_1 = through_dtype<T>(to - 1);
  if (to_minus_1 >= to) {
    int64_t magnitude = std::abs(to - 1);
    int bits = 0;
    while (magnitude >>= 1) ++bits;
    to = to_minus_1 - (int64_t{1} << (bits - mantissa_digits<T>() + 1));
  }
  return to;
}

// The dtype's lowest and largest finite values (bool: 0 and 1).
void dtype_limits(DType dtype, double& lowest, double& largest) {
  kernels::visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, BFloat16>) {
      largest = std::bit_cast<float>(0x7f7f0000u);
    } else if constexpr (std::is_same_v<T, Float16>) {
      largest = 65504.0;
    } else {
      largest = static_cast<double>(std::numeric_limits<T>::max());
    }
    if constexpr (std::is_integral_v<T>) lowest = static_cast<double>(std::numeric_limits<T>::lowest());
    else lowest = -largest;
  });
}

// ---- the in-place samplers (dispatch.h): the values they write do not depend on what self held ----
struct Uniform : InPlaceOp {
  static constexpr const char* name = "aten::uniform_";
  static void compute(const Tensor& self, double from, double to, Generator* generator) {
    check_dtype_supported(self.is_floating_point(), "check_uniform_bounds", self.dtype());
    double lowest, largest;
    dtype_limits(self.dtype(), lowest, largest);
    EMBER_CHECK(from >= lowest && from <= largest, "from is out of bounds for ", type_meta_name(self.dtype()));
    EMBER_CHECK(to >= lowest && to <= largest, "to is out of bounds for ", type_meta_name(self.dtype()));
    EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
    EMBER_CHECK(to - from <= largest, "uniform_ expects to-from <= std::numeric_limits<",
                scalar_type_name(self.dtype()), ">::max(), but found to=", to, " and from=", from,
                " which result in to-from to exceed the limit");
    internal::check_no_internal_overlap(self);
    fill_on_cpu(self, [&](const Tensor& t) { kernels::uniform_fill(t, from, to, generator_or_default(generator)); });
  }
  static UniformBackward0 save(const Tensor&, double, double, Generator*) { return {}; }
};

struct Normal : InPlaceOp {
  static constexpr const char* name = "aten::normal_";
  static void compute(const Tensor& self, double mean, double std, Generator* generator) {
    EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
    check_dtype_supported(self.is_floating_point(), "normal_kernel_cpu", self.dtype());
    internal::check_no_internal_overlap(self);
    fill_on_cpu(self, [&](const Tensor& t) { kernels::normal_fill(t, mean, std, generator_or_default(generator)); });
  }
  static NormalBackward0 save(const Tensor&, double, double, Generator*) { return {}; }
};

struct BernoulliInPlace : InPlaceOp {
  static constexpr const char* name = "aten::bernoulli_";
  static void compute(const Tensor& self, double p, Generator* generator) {
    EMBER_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
    internal::check_no_internal_overlap(self);
    check_dtype_supported(self.dtype() != kFloat16, "bernoulli_scalar_cpu_", self.dtype());
    fill_on_cpu(self, [&](const Tensor& t) { kernels::bernoulli_fill(t, p, generator_or_default(generator)); });
  }
  static BernoulliBackward2 save(const Tensor&, double, Generator*) { return {}; }
};

struct Random : InPlaceOp {
  static constexpr const char* name = "aten::random_";
  static void compute(const Tensor& self, int64_t from, int64_t to, Generator* generator) {
    internal::check_no_internal_overlap(self);
    EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
    if (self.is_floating_point()) {
      kernels::visit_dtype(self.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, int64_t> && !std::is_same_v<T, bool>) {
          from = update_from<T>(from);
          to = update_to<T>(to);
        }
      });
      EMBER_CHECK(from < to,
                  "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=", from,
                  " >= to=", to);
    }
    // (PyTorch also warns when a float dtype cannot represent every integer of the range.)
    double lowest, largest;
    dtype_limits(self.dtype(), lowest, largest);
    const int64_t last = to - 1;
    EMBER_CHECK(static_cast<double>(from) >= lowest && static_cast<double>(from) <= largest,
                "from is out of bounds for ", type_meta_name(self.dtype()));
    EMBER_CHECK(static_cast<double>(last) >= lowest && static_cast<double>(last) <= largest,
                "to - 1 is out of bounds for ", type_meta_name(self.dtype()));
    const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
    fill_on_cpu(self, [&](const Tensor& t) { kernels::random_fill(t, range, from, generator_or_default(generator)); });
  }
  static RandomBackward0 save(const Tensor&, int64_t, int64_t, Generator*) { return {}; }
};

// random_() without a range: every integer from 0 that the dtype holds exactly, drawn as
// ATen's uniform_int_distribution draws it (integers: up to the type's maximum; floats: up to
// 2^digits, where digits counts the significand's bits).
struct RandomFullRange : InPlaceOp {
  static constexpr const char* name = "aten::random_";
  static void compute(const Tensor& self, Generator* generator) {
    internal::check_no_internal_overlap(self);
    const uint64_t range = kernels::visit_dtype(self.dtype(), [](auto tag) -> uint64_t {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T>) return static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1;
      else if constexpr (std::is_same_v<T, BFloat16>) return (uint64_t{1} << 8) + 1;
      else if constexpr (std::is_same_v<T, Float16>) return (uint64_t{1} << 11) + 1;
      else return (uint64_t{1} << std::numeric_limits<T>::digits) + 1;
    });
    fill_on_cpu(self, [&](const Tensor& t) { kernels::random_fill(t, range, 0, generator_or_default(generator)); });
  }
  static RandomBackward2 save(const Tensor&, Generator*) { return {}; }
};
struct RandomTo : InPlaceOp {
  static constexpr const char* name = "aten::random_";
  static void compute(const Tensor& self, int64_t to, Generator* generator) { Random::compute(self, 0, to, generator); }
  static RandomBackward1 save(const Tensor&, int64_t, Generator*) { return {}; }
};

}  // namespace

// ---- in place ----

Tensor& uniform_(Tensor& self, double from, double to, Generator* generator) {
  call<Uniform>(self, from, to, generator);
  return self;
}

Tensor& normal_(Tensor& self, double mean, double std, Generator* generator) {
  call<Normal>(self, mean, std, generator);
  return self;
}

Tensor& bernoulli_(Tensor& self, double p, Generator* generator) {
  call<BernoulliInPlace>(self, p, generator);
  return self;
}

Tensor& random_(Tensor& self, int64_t from, int64_t to, Generator* generator) {
  call<Random>(self, from, to, generator);
  return self;
}
Tensor& random_(Tensor& self, int64_t to, Generator* generator) {
  call<RandomTo>(self, to, generator);
  return self;
}
Tensor& random_(Tensor& self, Generator* generator) {
  call<RandomFullRange>(self, generator);
  return self;
}

Tensor& Tensor::uniform_(double from, double to) { return ember::uniform_(*this, from, to); }
Tensor& Tensor::normal_(double mean, double std) { return ember::normal_(*this, mean, std); }
Tensor& Tensor::random_(int64_t from, int64_t to) { return ember::random_(*this, from, to); }
Tensor& Tensor::random_(int64_t to) { return ember::random_(*this, to); }
Tensor& Tensor::random_() { return ember::random_(*this); }

// ---- new tensors ----

// As ATen makes them, and as a profile shows them (profiler/steps.h): aten::rand > aten::empty,
// aten::uniform_; rand_like > empty_like > empty_strided, then uniform_; randn's with normal_.
namespace {
using profiler::steps::Factory;
using profiler::steps::unset;  // an option record_shapes lists as []

template <const char* Name, typename Sampler>
Tensor sampled(const Dims& sizes, const Options& options, Generator* generator) {
  profiler::OpEvent<Factory<Name>> event(unset, unset, unset, unset, unset);
  Tensor out = internal::recorded_empty(sizes, options.dtype_);
  call_on_new_tensor<Sampler>(out, 0.0, 1.0, generator);
  return internal::finish_factory(out, options);
}

template <const char* Name, typename Sampler>
Tensor sampled_like(const Tensor& t, const Options& options, Generator* generator) {
  return internal::like(t, options, [&](const Tensor& u) {
    profiler::OpEvent<Factory<Name>> event(u, unset, unset, unset, unset, unset);
    Tensor out = internal::recorded_empty_like(u, MemoryFormat::Preserve);
    call_on_new_tensor<Sampler>(out, 0.0, 1.0, generator);
    return out;
  });
}
}  // namespace

Tensor rand(const Dims& sizes, Options options, Generator* generator) {
  return sampled<profiler::steps::kRand, Uniform>(sizes, options, generator);
}
Tensor randn(const Dims& sizes, Options options, Generator* generator) {
  return sampled<profiler::steps::kRandn, Normal>(sizes, options, generator);
}
Tensor rand_like(const Tensor& t, Options options, Generator* generator) {
  return sampled_like<profiler::steps::kRandLike, Uniform>(t, options, generator);
}
Tensor randn_like(const Tensor& t, Options options, Generator* generator) {
  return sampled_like<profiler::steps::kRandnLike, Normal>(t, options, generator);
}

Tensor randint(int64_t low, int64_t high, const Dims& sizes, Options options, Generator* generator) {
  Tensor out = internal::new_empty(sizes, options.has_dtype ? options.dtype_ : kInt64);
  call_on_new_tensor<Random>(out, low, high, generator);
  return internal::finish_factory(out, options);
}

Tensor randint(int64_t high, const Dims& sizes, Options options, Generator* generator) {
  return randint(0, high, sizes, options, generator);
}

Tensor randperm(int64_t n, Options options, Generator* generator) {
  const DType dtype = options.has_dtype ? options.dtype_ : kInt64;
  EMBER_CHECK(dtype != kFloat16 || n <= (int64_t{1} << 11) + 1, "n cannot be greater than 2049 for Half type.");
  EMBER_CHECK(dtype != kFloat32 || n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  EMBER_CHECK(dtype != kFloat64 || n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
  check_dtype_supported(dtype != kBool, "randperm", dtype);
  Tensor out = internal::new_empty({n}, dtype);  // after the checks: a too-large n must not be allocated first
  kernels::randperm_fill(out, generator_or_default(generator));
  return internal::finish_factory(out, options);
}

namespace {
struct Bernoulli : FunctionalOp {
  static constexpr const char* name = "aten::bernoulli";
  static Tensor compute(const Tensor& probabilities, Generator* generator) {
    const DType dtype = probabilities.dtype();
    check_dtype_supported(dtype != kFloat16, "bernoulli_tensor_cpu_self_", dtype);
    check_dtype_supported(dtype == kFloat32 || dtype == kFloat64 || dtype == kBFloat16, "bernoulli_tensor_cpu_p_",
                          dtype);
    Tensor p = internal::contiguous(probabilities.to(kCPU));
    Tensor out = internal::new_empty(probabilities.sizes(), dtype);
    kernels::bernoulli_fill(out, p, generator_or_default(generator));
    return out.to(probabilities.device());
  }
  static BernoulliBackward0 save(const Tensor&, const Tensor&, Generator*) { return {}; }
};
}  // namespace

Tensor bernoulli(const Tensor& probabilities, Generator* generator) {
  return call<Bernoulli>(probabilities, generator);
}

}  // namespace ember
