// gemm: oneDNN for float32/bfloat16, Eigen for float64/int64 (and float16, widened to float32), and a plain loop for
// tiny products. oneDNN reads strided operands directly (a transposed weight is just other strides), so `linear`'s
// weight.t() costs no copy. Building a oneDNN primitive is expensive next to a small product, so built primitives are
// kept, with memory objects each call re-points, in a per-thread cache keyed by shapes, strides, dtypes, attributes
// and thread count (Product below). A weights operand used again unchanged may be read from a packed copy
// (packed_weights.h); a column-major left operand is copied row-major first (Product says why).
//
// Tiny products (at most kSmallProduct multiply-adds) skip the libraries: their per-call overhead
// is larger than the arithmetic. The loop sums each dot product in order over k and then forms
// beta * c + alpha * dot, without fused multiply-adds: the order of PyTorch's own CPU gemm
// (aten/src/ATen/native/cpu/BlasKernel.cpp), which Debian's PyTorch uses for every size. So small
// results equal that PyTorch's bit for bit; larger ones differ in the last bits (blocked sums).
#include "kernel_list.h"

#include "backend.h"

#include "eigen.h"

#include <bit>
#include <map>
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "contention.h"
#include "convert.h"
#include "core/size_arithmetic.h"
#include "core/storage.h"
#include "packed_weights.h"
#include "room_for_onednn.h"

namespace ember::kernels::cpu {

namespace {

dnnl::memory::data_type dnnl_type(DType dtype) {
  return dtype == kBFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

dnnl::memory::desc describe(const Tensor& t) {
  return dnnl::memory::desc({t.size(0), t.size(1), t.size(2)}, dnnl_type(t.dtype()),
                            {t.size(0) == 1 ? t.size(1) * t.size(2) : t.stride(0), t.stride(1), t.stride(2)});
}

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// What one product of a given shape needs besides this call's pointers, built once per thread:
// its primitive, the weights layout oneDNN would choose itself (the layout a packed copy of the
// weights is reordered into, packed_weights.h), and memory objects over each operand that a call
// only points at its own data. Building the descriptors and memory objects anew for every call
// took a [32, 64] @ [64, 64] product longer than oneDNN's own work. Per thread, so that no lock is
// taken and a call may re-point the memory objects; products are run by the thread that calls the
// op (oneDNN's own threads only compute inside one), so there is one such cache in practice.
//
// oneDNN 2.6's gemm on an AVX2 CPU reads a column-major left operand slowly: a weight gradient's
// g.t() @ x, [512, 256] @ [256, 512], took twice as long as the same product with a row-major
// copy of g.t() (Zen 3), and the copy (one oneDNN reorder) took 2% of the product. So there such an
// operand is copied first, into a kernel-side temporary; the result is the same product. On an
// AVX-512 CPU oneDNN reads it in place at full speed: on Sapphire Rapids the same product took
// 866-890 us read in place against 887-918 us copied first, so there it is not copied. Which of
// the two a product is follows the ISA oneDNN runs (bench_step_products times both).
struct Product {
  dnnl::matmul plain;                        // reads the weights in their own layout
  dnnl::matmul::primitive_desc packed_desc;  // oneDNN's own choice of weights layout
  dnnl::matmul packed;                       // reads them in that layout; built when first needed
  dnnl::memory::desc weights_desc, preferred_weights;
  dnnl::memory source, weights, destination, bias;
  std::unordered_map<int, dnnl::memory> arguments;
  dnnl::reorder to_row_major;  // a column-major left operand's copy (empty for a row-major one)
  dnnl::memory given_source;   // that operand as given
  int64_t uses = 0;            // products it has run (the dispatch trace tells a new one from a cached one)
};

// Whether oneDNN's kernels use AVX-512: what the CPU has, unless ONEDNN_MAX_CPU_ISA caps it
// (bench_step_products measures AVX2's kernels on an AVX-512 CPU that way).
bool onednn_uses_avx512() {
  static const bool uses = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core;
  return uses;
}

Product& product_for(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta,
                     const Tensor& bias) {
  std::vector<int64_t> key;
  for (const Tensor* t : {&a, &b, &out}) {
    key.push_back(static_cast<int64_t>(t->dtype()));
    for (int d = 0; d < 3; ++d) key.insert(key.end(), {t->size(d), t->stride(d)});
  }
  // A primitive keeps the thread count it was built with, so the count is part of the key.
  key.insert(key.end(),
             {std::bit_cast<int64_t>(alpha), std::bit_cast<int64_t>(beta), bias.defined(), omp_get_max_threads()});
  thread_local std::map<std::vector<int64_t>, Product> cache;
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;

  check_room_for_onednn();
  dnnl::memory::desc bias_desc;
  if (bias.defined())
    bias_desc = dnnl::memory::desc({1, 1, out.size(2)}, dnnl_type(bias.dtype()), {out.size(2), out.size(2), 1});
  dnnl::primitive_attr attr;
  if (alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(alpha)});
  if (beta != 0.0) {
    dnnl::post_ops ops;
    ops.append_sum(static_cast<float>(beta));
    attr.set_post_ops(ops);
  }
  const bool copies_source = a.stride(2) != 1 && !onednn_uses_avx512();
  const dnnl::memory::desc given_desc = describe(a);
  const dnnl::memory::desc source_desc =
      copies_source ? dnnl::memory::desc({a.size(0), a.size(1), a.size(2)}, dnnl_type(a.dtype()),
                                         {a.size(1) * a.size(2), a.size(2), 1})
                    : given_desc;
  const dnnl::memory::desc weights_desc = describe(b), destination_desc = describe(out);
  auto primitive_desc = [&](const dnnl::memory::desc& weights) {
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(source_desc, weights, bias_desc, destination_desc), attr,
                                        cpu_engine());
  };
  const dnnl::matmul::primitive_desc chosen = primitive_desc(
      dnnl::memory::desc({b.size(0), b.size(1), b.size(2)}, dnnl_type(b.dtype()), dnnl::memory::format_tag::any));
  if (cache.size() > 4096) cache.clear();  // bound the cache for programs with many shapes
  Product product{
      dnnl::matmul(primitive_desc(weights_desc)),
      chosen,
      dnnl::matmul(),
      weights_desc,
      chosen.weights_desc(),
      dnnl::memory(source_desc, cpu_engine(), nullptr),
      dnnl::memory(weights_desc, cpu_engine(), nullptr),
      dnnl::memory(destination_desc, cpu_engine(), nullptr),
      bias.defined() ? dnnl::memory(bias_desc, cpu_engine(), nullptr) : dnnl::memory(),
      {},
      copies_source ? dnnl::reorder(dnnl::reorder::primitive_desc(cpu_engine(), given_desc, cpu_engine(), source_desc))
                    : dnnl::reorder(),
      copies_source ? dnnl::memory(given_desc, cpu_engine(), nullptr) : dnnl::memory()};
  product.arguments = {{DNNL_ARG_SRC, product.source}, {DNNL_ARG_DST, product.destination}};
  if (bias.defined()) product.arguments.emplace(DNNL_ARG_BIAS, product.bias);
  return cache.emplace(std::move(key), std::move(product)).first->second;
}

// A contiguous buffer (a kernel-side temporary, counted like every allocation).
// "256x512x512" (M x K x N), with the batch in front when there is one: the dispatch trace's words.
std::string product_shape(const Tensor& out, const Tensor& a) {
  const std::string shape = str_cat(a.size(1), "x", a.size(2), "x", out.size(2));
  return out.size(0) == 1 ? shape : str_cat(out.size(0), " of ", shape);
}

Tensor kernel_buffer(const Dims& sizes, DType dtype) {
  auto storage = make_recycled<Storage>(storage_nbytes_contiguous(sizes, element_size(dtype)), kCPU);
  return Tensor(make_recycled<TensorImpl>(std::move(storage), sizes, contiguous_strides(sizes), 0, dtype,
                                          /*tracks_version=*/false));
}

void gemm_onednn(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  thread_local dnnl::stream stream(cpu_engine());
  Product& product = product_for(out, a, b, alpha, beta, bias);
  Tensor row_major_copy;
  if (product.to_row_major) {
    row_major_copy = kernel_buffer(a.sizes(), a.dtype());
    product.given_source.set_data_handle(a.raw_data());
    product.source.set_data_handle(row_major_copy.raw_data());
    product.to_row_major.execute(stream, product.given_source, product.source);
  } else {
    product.source.set_data_handle(a.raw_data());
  }
  product.weights.set_data_handle(b.raw_data());
  product.destination.set_data_handle(out.raw_data());
  if (bias.defined()) product.bias.set_data_handle(bias.raw_data());
  const WeightsMemory weights =
      weights_memory(b, product.weights, product.weights_desc, product.preferred_weights, cpu_engine(), stream);
  if (weights.packed && !product.packed) {
    check_room_for_onednn();
    product.packed = dnnl::matmul(product.packed_desc);
  }
  product.arguments[DNNL_ARG_WEIGHTS] = weights.memory;
  (weights.packed ? product.packed : product.plain).execute(stream, product.arguments);
  stream.wait();
  if (trace::enabled()) [[unlikely]]
    trace::say("oneDNN ", out.dtype() == kBFloat16 ? "bf16" : "float32", " matmul ", product_shape(out, a),
               ++product.uses == 1 ? ", primitive built" : ", cached primitive",
               weights.packed ? ", packed weights" : "", product.to_row_major ? ", left operand copied row-major" : "");
  else ++product.uses;
}

// An int64 product is computed on the same bits as uint64: unsigned products and sums wrap around,
// as PyTorch's int64 products do, where a signed overflow inside Eigen would be undefined behaviour.
template <typename T>
void gemm_eigen(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  using E = std::conditional_t<std::is_integral_v<T>, uint64_t, T>;
  using Matrix = Eigen::Matrix<E, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Strided = Eigen::Map<const Matrix, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
  auto elements = [](const Tensor& t) { return reinterpret_cast<E*>(t.data_ptr<T>()); };
  const E alpha_e = static_cast<E>(static_cast<T>(alpha)), beta_e = static_cast<E>(static_cast<T>(beta));
  const int64_t M = a.size(1), K = a.size(2), N = b.size(2);
  for (int64_t batch = 0; batch < out.size(0); ++batch) {
    Strided A(elements(a) + batch * a.stride(0), M, K, {a.stride(1), a.stride(2)});
    Strided B(elements(b) + batch * b.stride(0), K, N, {b.stride(1), b.stride(2)});
    Eigen::Map<Matrix> C(elements(out) + batch * M * N, M, N);
    if (beta == 0) C.noalias() = alpha_e * (A * B);
    else C = beta_e * C + alpha_e * (A * B);
    if (bias.defined()) C.rowwise() += Eigen::Map<const Eigen::Matrix<E, 1, Eigen::Dynamic>>(elements(bias), N);
  }
}

Tensor widened(const Tensor& t) {
  Tensor out = kernel_buffer(t.sizes(), kFloat32);
  copy(out, t);
  return out;
}

// oneDNN has bf16 kernels only from AVX-512 on, and float16 ones only with avx512_fp16. Elsewhere
// a 16-bit product is computed as such a product is defined: operands widened to float32, float32
// accumulation, each result rounded once to the 16-bit dtype.
void gemm_widened(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  Tensor out32 = beta != 0 ? widened(out) : kernel_buffer(out.sizes(), kFloat32);
  gemm(out32, widened(a), widened(b), alpha, beta, bias.defined() ? widened(bias) : Tensor());
  copy(out, out32);
}

constexpr int64_t kSmallProduct = 4096;

// Products of at most this many multiply-adds run on one thread, as OpenBLAS (libtorch's CPU gemm)
// runs them (its SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD): below it, waking a second thread
// costs more than the thread saves. This is the gemm's grain size (parallel.h has the element-wise
// one). oneDNN reads OpenMP's thread count, a per-thread setting, so lowering it for the duration
// of one product changes nothing for other threads. (Eigen's float64 products have their own rule.)
constexpr int64_t kSingleThreadedProduct = 65536 * 4;

class OneThreadScope {
 public:
  OneThreadScope() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThreadScope() { omp_set_num_threads(saved_); }
  OneThreadScope(const OneThreadScope&) = delete;
  OneThreadScope& operator=(const OneThreadScope&) = delete;

 private:
  int saved_;
};

template <typename T>
void gemm_in_order(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  const int64_t M = a.size(1), K = a.size(2), N = b.size(2);
  const T alpha_t = static_cast<T>(alpha), beta_t = static_cast<T>(beta);
  const T* bias_data = bias.defined() ? bias.data_ptr<T>() : nullptr;
  for (int64_t batch = 0; batch < out.size(0); ++batch) {
    const T* A = a.data_ptr<T>() + batch * a.stride(0);
    const T* B = b.data_ptr<T>() + batch * b.stride(0);
    T* C = out.data_ptr<T>() + batch * M * N;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        T dot = 0;
        for (int64_t k = 0; k < K; ++k)
          dot += A[i * a.stride(1) + k * a.stride(2)] * B[k * b.stride(1) + j * b.stride(2)];
        T& c = C[i * N + j];
        const T addend = bias_data ? bias_data[j] : beta == 0 ? T(0) : beta_t * c;
        c = (beta == 0 && !bias_data) ? alpha_t * dot : addend + alpha_t * dot;
      }
  }
}

}  // namespace

bool onednn_has_bf16() {
  static const bool has = [] {
    check_room_for_onednn();
    try {
      dnnl::memory::desc desc({1, 1, 1}, dnnl::memory::data_type::bf16, {1, 1, 1});
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(desc, desc, desc), cpu_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

void gemm(const Tensor& out, const Tensor& a, const Tensor& b, double alpha, double beta, const Tensor& bias) {
  if (out.numel() == 0) return;
  EMBER_INTERNAL_ASSERT(a.size(2) > 0, "gemm with an empty inner dimension (the op handles it)");
  EMBER_INTERNAL_ASSERT(has_gemm_layout(a) && has_gemm_layout(b), "gemm operands must have a unit inner stride");
  int64_t multiply_adds = 0;  // saturates: a broadcast batch can make the count overflow
  if (__builtin_mul_overflow(out.numel(), a.size(2), &multiply_adds)) multiply_adds = INT64_MAX;
  const bool tiny = multiply_adds <= kSmallProduct;
  if (tiny && (out.dtype() == kFloat32 || out.dtype() == kFloat64) && trace::enabled()) [[unlikely]]
    trace::say("in-order loop ", product_shape(out, a), " (", multiply_adds, " multiply-adds: at most ", kSmallProduct,
               " run without a library)");
  if (tiny && out.dtype() == kFloat32) return gemm_in_order<float>(out, a, b, alpha, beta, bias);
  if (tiny && out.dtype() == kFloat64) return gemm_in_order<double>(out, a, b, alpha, beta, bias);
  std::optional<OneThreadScope> one_thread;
  // A product too small to pay for waking threads, or one whose OpenMP team would wait at its
  // barrier for a thread another process keeps off the CPU (contention.h), runs on this thread.
  if (omp_get_max_threads() > 1 && (multiply_adds <= kSingleThreadedProduct || cores_are_contended()))
    one_thread.emplace();
  switch (out.dtype()) {
    case DType::Float32: gemm_onednn(out, a, b, alpha, beta, bias); return;
    case DType::BFloat16:
      if (onednn_has_bf16()) return gemm_onednn(out, a, b, alpha, beta, bias);
      if (trace::enabled()) [[unlikely]]
        trace::say("widened to float32: this CPU's oneDNN has no bf16 matmul");
      return gemm_widened(out, a, b, alpha, beta, bias);
    case DType::Float16:
      if (trace::enabled()) [[unlikely]]
        trace::say("widened to float32: oneDNN has no float16 matmul here");
      return gemm_widened(out, a, b, alpha, beta, bias);
    case DType::Float64:
    case DType::Int64:
      if (trace::enabled()) [[unlikely]]
        trace::say("Eigen ", out.dtype() == kFloat64 ? "float64" : "int64", " product ", product_shape(out, a));
      return out.dtype() == kFloat64 ? gemm_eigen<double>(out, a, b, alpha, beta, bias)
                                     : gemm_eigen<int64_t>(out, a, b, alpha, beta, bias);
    default: throw Error(str_cat("\"addmm_impl_cpu_\" not implemented for '", scalar_type_name(out.dtype()), "'"));
  }
}

}  // namespace ember::kernels::cpu
