// Sampling kernels: turn the generator's 32/64-bit draws into uniform, normal, Bernoulli and
// integer values exactly as PyTorch 1.13's CPU kernels do (aten/src/ATen/native/cpu/
// DistributionTemplates.h and aten/src/ATen/core/DistributionsHelper.h). "Exactly" includes how
// many draws each element takes, in which order the elements are visited, which fused
// multiply-adds the compiler made in PyTorch's AVX2 build, and the fast log/sin/cos approximations
// PyTorch's vectorised float normal uses, because each of these changes the last bit of a result.
//
// Every function here fills CPU tensor elements in place and holds the generator's mutex for
// the whole call. Argument checks (PyTorch's messages) are the op layer's job (engine/random.cpp).
#pragma once
#include <cstdint>

#include "core/generator.h"
#include "core/tensor.h"

namespace ember::kernels {

// ---- single values ----

// Uniform in [from, to) from one 32-bit draw: the low 24 bits scaled to [0, 1), then
// fma(x, to - from, from) in float (PyTorch's AVX2 build fuses that multiply-add).
float uniform_float(Generator& generator, float from = 0, float to = 1);
// Uniform in [from, to) from one 64-bit draw (two 32-bit outputs): the low 53 bits, in double.
double uniform_double(Generator& generator, double from = 0, double to = 1);
// PyTorch's scalar Box–Muller normal_distribution<double>: returns the generator's cached value
// when it has one; otherwise draws two doubles (4 outputs), returns r*cos(theta) and caches the
// unscaled r*sin(theta) for the next call. The result is fma(value, std, mean).
double normal_double(Generator& generator, double mean, double std);

// ---- whole tensors (CPU; float32, float64, bfloat16 and float16 unless said otherwise) ----

// Each element U(from, to) with one draw, visiting elements in memory order (what PyTorch's
// TensorIterator does for a lone output). from/to are first rounded to the tensor's dtype.
void uniform_fill(const Tensor& self, double from, double to, Generator& generator);
// Normal(mean, std). Contiguous tensors of 16+ elements take the 16-wide Box–Muller block fill
// (for float32 with PyTorch's AVX2 approximations of log, sin and cos); smaller or
// non-contiguous tensors take normal_double element by element, using and leaving the cache.
void normal_fill(const Tensor& self, double mean, double std, Generator& generator);
// Each element 1 when a fresh uniform_double is below p, else 0 (any dtype; PyTorch has no
// float16 kernel, so the op layer rejects float16).
// This is PyTorch's rule in builds without MKL (Debian's, ARM, ...). PyTorch builds with MKL on
// Intel CPUs draw Bernoulli numbers through MKL's own generator instead, so they differ.
void bernoulli_fill(const Tensor& self, double p, Generator& generator);
// Element i is 1 with probability probabilities[i] (same sizes as self, visited row-major).
// float64 probabilities use uniform_double, float32/bfloat16 ones uniform_float. A probability
// outside [0, 1] raises PyTorch's message once the loop reaches it.
void bernoulli_fill(const Tensor& self, const Tensor& probabilities, Generator& generator);
// Each element base + (draw % range): a 64-bit draw when range >= 2^32 (except float16 and bool),
// else a 32-bit one; the integer is then converted to the dtype. Any dtype.
void random_fill(const Tensor& self, uint64_t range, int64_t base, Generator& generator);
// A random permutation of 0..n-1 into the 1-D tensor self (n = its size): self[i] = i, then for
// each i a swap with position i + draw % (n - i), one 32-bit draw per swap.
void randperm_fill(const Tensor& self, Generator& generator);

}  // namespace ember::kernels
